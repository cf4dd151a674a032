"""Loaded scenarios cached on disk, so an unchanged file is neither parsed nor validated again.

An entry is keyed by the file's path and bytes, inside a folder keyed by everything else that
decides what a file loads to: the spec (every file under its root, schemas included), the
harness's own source, and the Python version. Change any of them and the entries are simply not
found. Only scenarios that loaded without a problem are stored, so every error message is made
fresh. An entry holds the scenario and its tier (computed under the same spec). Entries are
pickles written atomically by this user into a folder only this user can read
(``$CANASTA_CACHE_DIR``, else ``$XDG_CACHE_HOME/canasta-rules``, else ``~/.cache/canasta-rules``);
``CANASTA_CACHE_DIR=off`` turns the cache off. A cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..contract.disk_cache import ENVIRONMENT_VARIABLE, OFF, cache_root, read_entry, write_entry
from ..contract.disk_cache import context as _context
from ..contract.scenario import Scenario, load_scenario
from ..contract.spec import Spec
from ..contract.tiers import Tier, scenario_tier

__all__ = ["ENVIRONMENT_VARIABLE", "OFF", "Loaded", "cache_root", "load_cached", "load_scenario_cached"]


def _entry(folder: Path, path: Path, data: bytes) -> Path:
    key = hashlib.blake2b(str(path).encode() + b"\0" + data, digest_size=20).hexdigest()
    return folder / key[:2] / f"{key}.pickle"


@dataclass(frozen=True)
class Loaded:
    """A loaded scenario and its tier (:func:`~..contract.tiers.scenario_tier` under the same spec,
    which the cache's context covers; None if the spec could not give it)."""

    scenario: Scenario
    tier: Tier | None


def load_scenario_cached(path: Path, spec: Spec) -> Scenario:
    """:func:`load_scenario`, answered from the cache when the file and its context are unchanged."""
    return load_cached(path, spec).scenario


def load_cached(path: Path, spec: Spec) -> Loaded:
    """The scenario of ``path`` (as :func:`load_scenario`) with its tier, answered from the cache
    when the file and its context are unchanged (what the pytest plugin collects)."""
    root = cache_root()
    if root is None:
        return _loaded(path, spec)
    try:
        data = path.read_bytes()
    except OSError:
        return _loaded(path, spec)  # let the loader report the problem
    entry = _entry(root / _context(str(spec.root)), path, data)
    found = read_entry(entry)
    if isinstance(found, Loaded):
        return found
    loaded = _loaded(path, spec)
    write_entry(entry, loaded)
    return loaded


def _loaded(path: Path, spec: Spec) -> Loaded:
    scenario = load_scenario(path, spec)
    try:
        tier: Tier | None = scenario_tier(scenario, spec)
    except Exception:  # noqa: BLE001 - the caller computes it again and reports what goes wrong
        tier = None
    return Loaded(scenario, tier)
