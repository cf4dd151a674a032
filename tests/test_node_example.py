"""The JavaScript skeleton in examples/node-engine takes the whole suite with the harness standing."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "examples" / "node-engine" / "engine.js"
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not on PATH")
def test_the_node_skeleton_runs_the_whole_suite(tmp_path):
    report = tmp_path / "report.json"
    command = shlex.join([NODE, str(ENGINE)])  # type: ignore[list-item]
    completed = subprocess.run(
        [sys.executable, "-m", "canasta_conformance", "run", "--engine-cmd", command,
         "--canasta-check-protocol", "--canasta-report", str(report), "-p", "no:hypothesispytest"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    # the skeleton executes no scenario: the run says so and fails with pytest's "no tests ran"
    # status (5); 2, 3 and 4 would be a harness problem
    assert completed.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, completed.stdout[-3000:] + completed.stderr
    assert "canasta: no scenario was executed: the engine supports none of the" in completed.stdout
    data = json.loads(report.read_text())
    assert data["header"]["engine"]["name"] == "node-skeleton" and data["header"]["protocol"] == 1
    scenarios = [r for r in data["results"] if r["rules"]]  # (a scenario file that does not load has no rules)
    assert len(scenarios) > 100
    harness_trouble = [r for r in scenarios if r["status"] not in ("unsupported", "failed", "passed")]
    assert harness_trouble == []
    classic = [r for r in data["results"] if "plays no Canasta yet" in r["message"]]
    assert classic, "the Classic scenarios reach the skeleton's apply, which answers unsupported"
    assert "Canasta conformance by rule area" in completed.stdout
