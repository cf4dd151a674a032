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
