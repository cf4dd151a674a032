"""A non-editable install, used from outside the checkout, finds spec/ and scenarios/."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from shared_builds import build_install, build_once, shared_folder


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built and installed with its dependencies into a new environment, once per test
    run (shared_builds: started in the background as soon as collection selects a test that needs it)."""
    return Path(build_once(shared_folder(tmp_path_factory, "install"), build_install)["env"])


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    return tmp_path


def clean_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def test_the_installed_package_carries_spec_and_scenarios(installed, outside, root):
    code = "from canasta_conformance.contract.paths import spec_dir, scenarios_dir; print(spec_dir()); print(scenarios_dir())"
    result = run(installed / "bin" / "python", "-c", code, cwd=outside, env=clean_env())
    assert result.returncode == 0, result.stderr
    spec, scenarios = result.stdout.split()
    assert "site-packages" in spec and "site-packages" in scenarios
    assert not spec.startswith(str(root))
    assert (Path(spec) / "parameters.yaml").is_file()
    assert len(list(Path(scenarios).rglob("*.yaml"))) == len(list((root / "scenarios").rglob("*.yaml")))


def test_validate_and_run_work_from_outside_the_checkout(installed, outside):
    validate = run(installed / "bin" / "canasta", "validate", cwd=outside, env=clean_env())
    assert validate.returncode == 0, validate.stdout + validate.stderr
    suite = run(installed / "bin" / "canasta", "run", "-q", cwd=outside, env=clean_env())
    assert suite.returncode == 0, suite.stdout[-3000:]
    assert "Canasta conformance by rule area" in suite.stdout
    assert " failed" not in suite.stdout.splitlines()[-1]


def test_an_engine_program_runs_through_the_installed_canasta_serve(installed, outside):
    serve = f"{installed / 'bin' / 'canasta'} serve"
    suite = run(
        installed / "bin" / "canasta", "run", "--engine-cmd", serve, "--canasta-check-protocol", "-k", "blocked",
        cwd=outside, env=clean_env(),
    )
    assert suite.returncode == 0, suite.stdout[-3000:]
    assert " passed" in suite.stdout.splitlines()[-1] and "protocol violation" not in suite.stdout


def test_the_wheel_carries_the_corpus_exported_as_json(installed, outside, root):
    code = "import canasta_conformance, pathlib; print(pathlib.Path(canasta_conformance.__file__).parent / '_data' / 'export')"
    result = run(installed / "bin" / "python", "-c", code, cwd=outside, env=clean_env())
    assert result.returncode == 0, result.stderr
    export = Path(result.stdout.strip())
    import json

    manifest = json.loads((export / "manifest.json").read_text(encoding="utf-8"))
    assert len(manifest["scenarios"]) == len(list((root / "scenarios").rglob("*.yaml")))
    assert all((export / entry["file"]).is_file() for entry in manifest["scenarios"])
