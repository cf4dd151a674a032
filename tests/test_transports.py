"""The whole corpus gives the same result for every scenario in-process, through ``canasta serve``
(the JSON-lines protocol, every message checked against the schemas) and under xdist with one
engine process per worker. The runs are pytest subprocesses over a copy of the corpus."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from canasta_conformance.contract.paths import scenarios_dir
from canasta_conformance.contract.schemas import schema_errors

FAKE = Path(__file__).with_name("fake_process_engine.py")


def run_suite(folder: Path, name: str, *options: str) -> tuple[dict, str]:
    """Run pytest on the corpus copy; (the JSON report, the terminal output)."""
    report = folder / f"{name}.json"
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "corpus", "--canasta-scenarios", "corpus", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-q", "--canasta-report", str(report), *options],
        cwd=folder, capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode in (0, 1), completed.stdout[-3000:] + completed.stderr[-3000:]
    return json.loads(report.read_text()), completed.stdout


def statuses(report: dict) -> dict[str, str]:
    return {r["id"]: r["status"] for r in report["results"]}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A frozen copy of the corpus, so every run of this module sees the same scenarios."""
    folder = tmp_path_factory.mktemp("transports")
    shutil.copytree(scenarios_dir(), folder / "corpus")
    return folder


@pytest.fixture(scope="module")
def in_process(corpus) -> tuple[dict, str]:
    return run_suite(corpus, "in-process", "--canasta-engine", "canasta_reference:create_engine")


def test_the_in_process_report_fits_its_schema_and_names_the_engine(in_process):
    report, _ = in_process
    assert list(schema_errors("report", report)) == []
    assert report["header"]["engine"]["name"] == "canasta-reference"
    assert report["header"]["engine"]["factory"] == "canasta_reference:create_engine"
    assert report["summary"]["total"] == len(report["results"]) > 100


def test_the_corpus_through_canasta_serve_gives_the_in_process_results(corpus, in_process):
    command = shlex.join([sys.executable, "-m", "canasta_conformance", "serve"])
    served, output = run_suite(corpus, "served", "--canasta-engine-cmd", command, "--canasta-check-protocol")
    assert statuses(served) == statuses(in_process[0])
    assert served["header"]["engine"]["command"] == command and served["header"]["protocol"] == 1
    assert "protocol violation" not in output


def test_xdist_gives_the_serial_results_with_one_engine_process_per_worker(corpus, in_process):
    pids = corpus / "pids"
    junit = corpus / "xdist.xml"
    command = shlex.join([sys.executable, str(FAKE), "ok", "--pids", str(pids)])
    report, output = run_suite(corpus, "xdist", "-n", "2", "--canasta-engine-cmd", command, f"--junitxml={junit}")
    serial = in_process[0]
    assert statuses(report) == statuses(serial)
    assert len(set(pids.read_text().split())) == 2, "each worker runs one engine process for all its scenarios"
    assert report["header"]["engine"]["name"] == "canasta-reference"
    # the terminal summary of the controller counts what the serial run counts
    serial_total = _summary_line(in_process[1])
    assert serial_total is not None and _summary_line(output) == serial_total
    # JUnit: one test case per scenario, with its status as a property
    cases = ET.parse(junit).getroot().iter("testcase")
    junit_statuses = {
        props["canasta_id"]: props["canasta_status"]
        for props in ({p.get("name"): p.get("value") for p in case.iter("property")} for case in cases) if "canasta_id" in props
    }
    assert junit_statuses == statuses(serial)


def _summary_line(output: str) -> str | None:
    lines = [line for line in output.splitlines() if line.startswith("scenarios ")]
    return lines[-1] if lines else None
