"""Expensive read-only builds that several tests share: the rules site (``mkdocs build --strict``)
and the package installed from its wheel into a new environment.

Each is built once per test run and shared by the xdist workers through a folder, a lock and a
marker file (the first to take the lock builds; the others wait for it and read the marker). A
build may also be started in the background as soon as collection shows that a selected test
needs it (``conftest.pytest_collection_finish``): the build then runs beside the first tests
instead of holding a worker while the tests that need it wait (the wheel's build and install
mostly wait on pip's index). A background build that fails leaves no marker: the fixture then
builds again itself and reports the failure as a test failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
import venv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

try:
    import fcntl
except ImportError:  # not POSIX: each worker builds its own copy
    fcntl = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parent.parent

#: builder: (shared folder) -> JSON data for the marker
Builder = Callable[[Path], dict[str, Any]]

_RUNNING: list[subprocess.Popen[str]] = []  # background builds' processes, stopped at the end of the run
_RUNNING_LOCK = threading.Lock()


def shared_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """The folder the xdist workers of one run share (each worker's base temporary folder lies in
    the controller's), or this process's own when it is not an xdist worker."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent / f"canasta-{name}-{run_id}") if run_id and fcntl else (base / f"canasta-{name}")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def build_once(folder: Path, build: Builder) -> dict[str, Any]:
    """The marker's data of the build in ``folder``, building it first if nobody has."""
    with open(folder / "lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        marker = folder / "built.json"
        if not marker.exists():
            marker.write_text(json.dumps(build(folder)))
        data: dict[str, Any] = json.loads(marker.read_text())
        return data


def start_in_background(folder: Path, build: Builder) -> None:
    """Start ``build_once(folder, build)`` in a thread (a failure is left for the fixture to meet)."""

    def work() -> None:
        try:
            build_once(folder, build)
        except Exception:  # noqa: BLE001 - the fixture builds again and reports it
            pass

    threading.Thread(target=work, name=f"canasta-build-{folder.name}", daemon=True).start()


def stop_background_builds() -> None:
    """Stop the processes of background builds still running (a run that ended early)."""
    with _RUNNING_LOCK:
        for process in _RUNNING:
            if process.poll() is None:
                process.kill()
        _RUNNING.clear()


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``subprocess.run`` whose process is stopped with the test run."""
    command = [str(a) for a in args]
    with _RUNNING_LOCK:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _RUNNING.append(process)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        raise
    finally:
        with _RUNNING_LOCK:
            if process in _RUNNING:
                _RUNNING.remove(process)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


# --------------------------------------------------------------------------------------------
# The builds


def build_site(folder: Path) -> dict[str, Any]:
    """``mkdocs build --strict`` of the checkout into ``folder/site``."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    target = folder / "site"
    started = time.perf_counter()
    result = run(sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "--site-dir", target, cwd=ROOT, env=env, timeout=900)
    seconds = time.perf_counter() - started
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr[-6000:]}"
    return {"seconds": seconds, "output": result.stderr}


def build_install(folder: Path) -> dict[str, Any]:
    """The checkout's wheel built and installed, with its dependencies, into a new environment."""
    wheels = folder / "wheels"
    # The build backend and what the wheel's hook imports (pyproject.toml's build-system) are in
    # the test environment (the test extra lists hatchling): built without isolation, the same
    # wheel costs about 2 s of CPU instead of 7, pip no longer installing them into a build
    # environment of its own first. Without hatchling here, pip makes that environment.
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", wheels, ROOT, cwd=folder)
    assert built.returncode == 0, built.stderr
    env_dir = folder / "venv"
    # no pip in the new environment (bootstrapping one costs seconds): this environment's pip
    # installs the wheel and its dependencies into it (pip --python)
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    wheel = next(wheels.glob("canasta_rules-*.whl"))
    installed = run(sys.executable, "-m", "pip", "--python", python, "install", "-q", wheel, cwd=folder)
    assert installed.returncode == 0, installed.stderr
    return {"env": str(env_dir)}


def mkdocs_available() -> str | None:
    """Why the site cannot be built here, or None."""
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError as error:
        return f"the docs extra is not installed ({error.name}); pip install -e '.[docs]'"
    return None


#: a fixture -> (the shared folder's name, its build, why it cannot be built here or None)
EARLY_BUILDS: dict[str, tuple[str, Builder, Callable[[], str | None]]] = {
    "built": ("site", build_site, mkdocs_available),
    "served": ("site", build_site, mkdocs_available),
    "installed": ("install", build_install, lambda: None),
}


def start_needed_builds(items: list[pytest.Item], tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Start in the background every build a selected test needs (by the fixtures it uses); the
    names of the folders started."""
    needed: dict[str, Builder] = {}
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):
            early = EARLY_BUILDS.get(fixture)
            if early is not None and early[0] not in needed and early[2]() is None:
                needed[early[0]] = early[1]
    for name, build in needed.items():
        start_in_background(shared_folder(tmp_path_factory, name), build)
    return list(needed)
