"""Where the spec and the scenario corpus live.

In a checkout (or an editable install) they are the top-level ``spec/`` and ``scenarios/``
folders; in an installed wheel they are package data under ``canasta_conformance/_data``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

#: the canasta_conformance package (this module is in its contract/ layer)
_PACKAGE = Path(__file__).resolve().parent.parent


@cache
def _root() -> Path:
    packaged = _PACKAGE / "_data"
    if (packaged / "spec").is_dir():
        return packaged
    checkout = _PACKAGE.parent.parent
    if (checkout / "spec").is_dir():
        return checkout
    raise FileNotFoundError(
        f"cannot find the Canasta spec: neither {packaged / 'spec'} nor {checkout / 'spec'} exists"
    )


def spec_dir() -> Path:
    return _root() / "spec"


def scenarios_dir() -> Path:
    return _root() / "scenarios"


def schema_dir() -> Path:
    return spec_dir() / "schema"
