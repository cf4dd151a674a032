from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # noqa: F401 - see below
from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]
# PyYAML is imported here, before any test runs, so that pytester's in-process runs never unload it:
# the harness imports it only when it parses a file, and a run that first imports it has it taken
# out of sys.modules again afterwards, while its compiled loader (libyaml) keeps the first import's
# node classes, so the next import's constructor refuses them ("expected a mapping node, but found
# mapping"): tests/test_plugin.py run on its own failed that way.

# Generated inputs are checked, not timed: on a loaded machine (CI, two test workers on two cores)
# drawing an input or running an example may be slow, which must not fail a test.
settings.register_profile("canasta", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("canasta")

# A full garbage collection walks every object the test process holds (the modules, the corpus
# loaded once, the built pages...); at the default thresholds one ran every few tests and took
# about 5% of a test process's CPU. A full collection now waits for ten times as many younger
# ones; the young generations, where nearly all of the tests' cyclic garbage dies, are as before.
# (Measured on ten test modules in one process: 2.1 s of full collections, 0.1 s after.)
gc.set_threshold(gc.get_threshold()[0], gc.get_threshold()[1], 100)

# The tests start about 150 Python processes (pytest runs, xdist workers, engine programs, the
# CLI). Where PYTHONDONTWRITEBYTECODE is set (as on many CI machines and in containers), each
# of them compiled every module of the checkout it imports from source, and pytest rewrote the
# harness's modules again (it rewrites a plugin's package): about 0.2 s of CPU a process. The test
# run gives its own processes Python's default bytecode cache back (``__pycache__`` beside the
# sources, ignored by git); the installed libraries are compiled already, by pip. (A separate
# bytecode folder, PYTHONPYCACHEPREFIX, was tried and taken back: every process then compiled the
# installed libraries again.) The README's test command in fresh copies of the checkout, side by
# side with and without this (2 pairs): 0.88x and 0.89x the CPU.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
# the rules site is its own package beside the harness (rules_site/canasta_site): import this
# checkout's copy
SITE = str(ROOT / "rules_site")
if SITE not in sys.path:
    sys.path.insert(0, SITE)


# pytester gives every in-process run a home folder of its own, where the scenario cache would
# start empty each time (every scenario parsed and validated again): the runs of a test session
# share the cache a user's runs share (its entries are keyed by each file's path and bytes, the spec
# and the harness; the cache's own tests name their folders). CANASTA_CACHE_DIR, when set, is kept.
if "CANASTA_CACHE_DIR" not in os.environ:
    from canasta_conformance.contract.disk_cache import cache_root

    _CACHE = cache_root()
    if _CACHE is not None:
        os.environ["CANASTA_CACHE_DIR"] = str(_CACHE)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the shared builds the selected tests need (the site, the installed wheel) in the
    background at once, beside the first tests (shared_builds)."""
    if session.config.option.collectonly:
        return
    from shared_builds import start_needed_builds

    start_needed_builds(session.items, session.config._tmp_path_factory)  # type: ignore[attr-defined]


def pytest_unconfigure(config: pytest.Config) -> None:
    from shared_builds import stop_background_builds

    stop_background_builds()


#: test modules whose costly module-scoped fixtures must be built once: under ``pytest -n 2`` each
#: group's tests run on one worker, so the other worker goes on with other tests instead of
#: building the fixture too (or waiting on the site's build lock). module -> group
SHARED_FIXTURE_MODULES = {
    "test_site.py": "site",  # mkdocs build of the whole site (built once per run, under a lock)
    "test_site_browser.py": "site",  # the same built site, served to Chromium
    "test_transports.py": "transports",  # the corpus run in a pytest subprocess, compared thrice
    "test_export.py": "export",  # the corpus exported
    "test_install.py": "install",  # a wheel built and installed in a new venv
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """(xdist) ``-n N`` with the default ``load`` distribution: every test on its own, except the
    groups above. (xdist's ``--dist loadgroup`` with ``xdist_group`` marks would say the same, but
    its marks do not reach the scheduler with pytest 9.2's node ids: pytest-xdist issue 1386.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedFixtureScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
            return SHARED_FIXTURE_MODULES.get(module, nodeid)

    return SharedFixtureScheduling(config, log)
