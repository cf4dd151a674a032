"""The default values and names the options use, in a module that imports nothing: the pytest
plugin reads them in every pytest run of an environment where the package is installed."""

from __future__ import annotations

from typing import Literal

#: the engine under test when none is named: the reference engine
DEFAULT_ENGINE = "canasta_reference:create_engine"
#: how long an engine program may take to answer one request (seconds)
DEFAULT_TIMEOUT = 10.0
#: after this many scenarios in a row lose the engine program (a timeout, a crash, garbage on
#: stdout), the remaining scenarios are reported as errors without starting it again
MAX_CONSECUTIVE_FAULTS = 5

TierName = Literal["core", "reading"]
#: the tiers of scenarios (see tiers.py)
TIERS: tuple[TierName, ...] = ("core", "reading")
