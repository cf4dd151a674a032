"""Known failures (strict xfail, written from a run), the JSON report, the Markdown matrix, JUnit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from canasta_conformance.contract.schemas import schema_errors
from canasta_conformance.running.known_failures import KnownFailuresError, load_known_failures, updated_known_failures
from canasta_conformance.running.report import ReportEntry, render_matrix
from test_plugin import EXAMPLE, scenario

UNSUPPORTED = EXAMPLE.format(id="{id}").replace("{{", "{").replace("}}", "}").replace("title:", "requires: [deal]\ntitle:", 1)


ENGINE = "no_deal_engine:AcceptEverythingNoDeal"


def three_scenarios(pytester: pytest.Pytester) -> None:
    """Against ENGINE: pile-fails-one fails, meld-fails-two fails, pile-unsupported-three is
    unsupported (the engine declares no 'deal')."""
    pytester.syspathinsert()
    pytester.makepyfile(no_deal_engine="""
        from dataclasses import replace
        from fake_engines import AcceptEverything

        class AcceptEverythingNoDeal(AcceptEverything):
            def capabilities(self):
                return replace(super().capabilities(), name="AcceptEverything", features=("legal_actions",))
    """)
    scenario(pytester, "pile-fails-one")
    scenario(pytester, "meld-fails-two", area="meld")
    scenario(pytester, "pile-unsupported-three", UNSUPPORTED.replace("{id}", "pile-unsupported-three"))


def test_known_failures_are_xfail_and_an_unexpected_pass_fails_the_run(pytester):
    three_scenarios(pytester)
    known = pytester.path / "known.yaml"
    known.write_text("pile-fails-one: accepts everything (issue 7)\npile-unsupported-three: not yet\n")
    result = pytester.runpytest(
        "--canasta-engine", ENGINE, "--canasta-known-failures", str(known), "-rxs",
    )
    result.assert_outcomes(failed=1, xfailed=1, passed=0, skipped=1)
    result.stdout.fnmatch_lines(["XFAIL *pile-fails-one* - known failure: accepts everything (issue 7)"])
    # the reference engine passes them: a listed scenario that passes fails the run
    passing = pytester.runpytest("--canasta-known-failures", str(known))
    passing.assert_outcomes(failed=2, passed=1)
    passing.stdout.fnmatch_lines(["*[[]XPASS(strict)[]] known failure: accepts everything (issue 7)*"])


def test_a_broken_known_failures_file_is_a_usage_error_with_its_line(pytester):
    scenario(pytester, "pile-one")
    known = pytester.path / "known.yaml"
    known.write_text("pile-one: fine\nPile Two: nope\nmeld-three: ''\n")
    result = pytester.runpytest("--canasta-known-failures", str(known))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*known.yaml:1: (top): 'Pile Two' does not match*", "*known.yaml:3: meld-three: '' should be non-empty*"])


def test_writing_known_failures_keeps_reasons_adds_failures_and_drops_passes(pytester):
    three_scenarios(pytester)
    known = pytester.path / "known.yaml"
    known.write_text("pile-fails-one: our own words\nmeld-gone-four: a scenario this run did not see\n")
    pytester.runpytest("--canasta-engine", ENGINE, "--canasta-write-known-failures", str(known))
    written = load_known_failures(known)
    assert written == {
        "pile-fails-one": "our own words",
        "meld-fails-two": "step 1 (take [9H 9S]): expected a rejection citing pile.blocked.wild-top, the engine accepted",
        "meld-gone-four": "a scenario this run did not see",
    }
    assert known.read_text().startswith("# Known failures of AcceptEverything 0:")
    result = pytester.runpytest("--canasta-write-known-failures", str(known))  # the reference engine passes both
    result.stdout.fnmatch_lines(["canasta: wrote 1 known failures to * (0 new, 2 removed because they pass)"])
    assert load_known_failures(known) == {"meld-gone-four": "a scenario this run did not see"}


def test_canasta_known_failures_write_command(tmp_path):
    folder = tmp_path / "scenarios" / "pile"
    folder.mkdir(parents=True)
    (folder / "pile-cli-one.yaml").write_text(EXAMPLE.format(id="pile-cli-one").replace("{{", "{").replace("}}", "}"))
    known = tmp_path / "known.yaml"
    completed = subprocess.run(
        [sys.executable, "-m", "canasta_conformance", "known-failures", "write", str(known),
         "--engine", "fake_engines:AcceptEverything", "--scenarios", str(tmp_path / "scenarios"), "-p", "no:hypothesispytest"],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)},
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert load_known_failures(known) == {
        "pile-cli-one": "step 1 (take [9H 9S]): expected a rejection citing pile.blocked.wild-top, the engine accepted",
    }


def test_the_update_keeps_undecided_entries():
    update = updated_known_failures(
        {"a": "old", "b": "old", "c": "old", "d": "old"},
        {"a": "failed", "b": "passed", "c": "unsupported", "e": "error", "f": "xpass"},
        {"e": "step 1: boom"},
    )
    assert update.entries == {"a": "old", "c": "old", "d": "old", "e": "step 1: boom"}
    assert update.added == ("e",) and update.removed == ("b",)


def test_the_json_report_and_the_matrix(pytester):
    three_scenarios(pytester)
    known = pytester.path / "known.yaml"
    known.write_text("meld-fails-two: a known gap\n")
    report, matrix = pytester.path / "out" / "report.json", pytester.path / "out" / "matrix.md"
    result = pytester.runpytest(
        "--canasta-engine", ENGINE, "--canasta-known-failures", str(known),
        "--canasta-report", str(report), "--canasta-matrix", str(matrix),
    )
    result.stdout.fnmatch_lines([
        f"canasta: wrote the JSON report of 3 scenarios to {report}",
        f"canasta: wrote the conformance matrix to {matrix}",
        "area * passed * failed * error * unsupported rule-differs * xfail",
        "pile * 0 * 1 * 0 * 1 * 0 * 1",
    ])
    data = json.loads(report.read_text())
    assert list(schema_errors("report", data)) == []
    header = data["header"]
    assert header["engine"]["name"] == "AcceptEverything" and header["engine"]["factory"] == ENGINE
    assert header["spec"]["version"] and header["started"].endswith("+00:00") and header["options"]["known_failures"] == str(known)
    results = {r["id"]: r for r in data["results"]}
    assert {sid: r["status"] for sid, r in results.items()} == {
        "pile-fails-one": "failed", "meld-fails-two": "xfail", "pile-unsupported-three": "unsupported",
    }
    failed = results["pile-fails-one"]
    assert failed["rules"] == ["pile.blocked.wild-top"] and failed["step"] == 1 and failed["action"] == "take [9H 9S]"
    assert failed["message"].startswith("expected a rejection citing pile.blocked.wild-top")
    assert results["meld-fails-two"]["known_failure"] == "a known gap"
    assert results["pile-unsupported-three"]["message"] == "the engine does not declare deal"
    assert data["summary"]["failed"] == 1 and data["summary"]["by_area"]["pile"]["xfail"] == 1
    text = matrix.read_text()
    assert "# Canasta conformance: AcceptEverything 0" in text
    assert "| pile | 0 | 1 | 0 | 1 | 0 | 1 | 0% |" in text
    assert "### pile\n\n- `pile.blocked.wild-top`: `pile-fails-one`" in text


def test_the_matrix_lists_failing_rules_by_their_own_area():
    entries = [
        ReportEntry("a", "failed", rules=("pile.x", "meld.y"), areas=("pile", "meld")),
        ReportEntry("b", "passed", rules=("pile.x",), areas=("pile",)),
        ReportEntry("c", "xpass", rules=("meld.y",), areas=("meld",)),
    ]
    text = render_matrix({"engine": {"name": "e", "version": "1"}}, entries)
    assert "| Rule area | passed | failed | error | unsupported | rule-differs | xpass | conformance |" in text
    assert "| meld | 0 | 1 | 0 | 0 | 0 | 1 | 0% |" in text
    assert "| pile | 1 | 1 | 0 | 0 | 0 | 0 | 50% |" in text
    assert "### meld\n\n- `meld.y`: `a`, `c`\n\n### pile\n\n- `pile.x`: `a`" in text


def test_junit_xml_has_every_scenario_with_its_properties(pytester):
    three_scenarios(pytester)
    junit = pytester.path / "junit.xml"
    pytester.runpytest("--canasta-engine", ENGINE, f"--junitxml={junit}")
    cases = {case.get("name"): case for case in ET.parse(junit).getroot().iter("testcase")}
    assert set(cases) == {"pile-fails-one", "meld-fails-two", "pile-unsupported-three"}
    failed = cases["pile-fails-one"]
    props = {p.get("name"): p.get("value") for p in failed.iter("property")}
    assert props["canasta_status"] == "failed" and props["canasta_rules"] == "pile.blocked.wild-top"
    assert failed.find("failure") is not None and "expected a rejection citing" in failed.find("failure").get("message")
    assert cases["pile-unsupported-three"].find("skipped") is not None


def test_load_known_failures_reports_a_missing_file(tmp_path):
    with pytest.raises(KnownFailuresError, match="cannot read"):
        load_known_failures(tmp_path / "nope.yaml")


def test_a_scenario_result_travels_as_one_structured_property(pytester):
    """The item records one user property holding the result's JSON data (nothing joined into a
    string to be split again); the JSON report holds the same entry, read back as it was sent."""
    three_scenarios(pytester)
    pytester.makeconftest("""
        import json

        SEEN = []

        def pytest_runtest_logreport(report):
            if report.when == "call":
                SEEN.append([(name, value) for name, value in report.user_properties if name.startswith("canasta")])

        def pytest_sessionfinish(session):
            (session.config.rootpath / "seen.json").write_text(json.dumps(SEEN))
    """)
    known = pytester.path / "known.yaml"
    known.write_text("meld-fails-two: accepts everything\n")
    report = pytester.path / "report.json"
    pytester.runpytest("--canasta-engine", ENGINE, "--canasta-known-failures", str(known), f"--canasta-report={report}")
    seen = json.loads((pytester.path / "seen.json").read_text())
    assert len(seen) == 3 and all(len(props) == 1 and props[0][0] == "canasta_result" for props in seen)
    sent = {props[0][1]["id"]: props[0][1] for props in seen}
    assert all(isinstance(value["rules"], list) and isinstance(value["areas"], list) for value in sent.values())
    results = {r["id"]: r for r in json.loads(report.read_text())["results"]}
    assert results["pile-fails-one"] == sent["pile-fails-one"] and results["pile-fails-one"]["step"] == 1
    assert sent["meld-fails-two"]["known_failure"] == "accepts everything" and sent["meld-fails-two"]["status"] == "failed"
    assert results["meld-fails-two"] == {**sent["meld-fails-two"], "status": "xfail"}  # what pytest alone knows
    assert ReportEntry.from_json(results["pile-fails-one"]).to_json() == results["pile-fails-one"]
