from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]

# Generated inputs are checked, not timed: on a loaded machine (CI, two test workers on two cores)
# drawing an input or running an example may be slow, which must not fail a test.
settings.register_profile("canasta", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("canasta")

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
# the rules site is its own package beside the harness (rules_site/canasta_site): import this
# checkout's copy
SITE = str(ROOT / "rules_site")
if SITE not in sys.path:
    sys.path.insert(0, SITE)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


#: module-scoped fixtures too costly to build twice: under ``pytest -n 2`` (xdist's ``load``
#: distribution, made ``loadgroup`` below) every test that uses one runs on the same worker, so the
#: fixture is built once and the other worker goes on with other tests instead of building it too
#: (or waiting on the site's build lock). (test module, fixture) -> xdist group
SHARED_FIXTURES = {
    ("test_site.py", "built"): "site",  # mkdocs build of the whole site
    ("test_site_browser.py", "served"): "site",  # the same built site, served to Chromium
    ("test_transports.py", "in_process"): "transports",  # the corpus run in a pytest subprocess
    ("test_export.py", "corpus"): "export",  # the corpus exported
    ("test_install.py", "installed"): "install",  # a wheel built and installed in a new venv
    ("test_verdicts.py", "broadest_results"): "verdicts",  # the corpus run on a citing engine
}


def pytest_configure(config: pytest.Config) -> None:
    """``-n N`` distributes with ``load``; make it ``loadgroup`` (load, and each xdist group on one
    worker). Set here, not in addopts: a pytest run of this checkout without xdist (``canasta run
    -p no:xdist``) would refuse ``--dist``. xdist starts its workers after this hook."""
    if getattr(config.option, "dist", None) == "load":
        config.option.dist = "loadgroup"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        for (module, fixture), group in SHARED_FIXTURES.items():
            if item.path.name == module and fixture in fixtures:
                item.add_marker(pytest.mark.xdist_group(group))
