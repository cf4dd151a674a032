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
import os
import pickle
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .. import __version__
from ..contract.scenario import Scenario, load_scenario
from ..contract.spec import Spec
from ..contract.tiers import Tier, scenario_tier

ENVIRONMENT_VARIABLE = "CANASTA_CACHE_DIR"
OFF = ("", "0", "off", "none", "false")


def cache_root() -> Path | None:
    """Where entries live, or None when the cache is off."""
    value = os.environ.get(ENVIRONMENT_VARIABLE)
    if value is not None:
        return None if value.strip().lower() in OFF else Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "canasta-rules"


@cache
def _context(spec_root: str) -> str:
    """A digest of everything besides the file that decides what a scenario file loads to."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{sys.version}\0{__version__}\0".encode())
    for root in (Path(spec_root), Path(__file__).resolve().parent.parent):  # the spec and the whole package
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in (".yaml", ".yml", ".json", ".py"):
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


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
    try:
        with entry.open("rb") as handle:
            found = pickle.load(handle)
        if isinstance(found, Loaded):
            return found
    except Exception:  # noqa: BLE001 - a missing, partial or stale entry is a miss
        pass
    loaded = _loaded(path, spec)
    _store(entry, loaded)
    return loaded


def _loaded(path: Path, spec: Spec) -> Loaded:
    scenario = load_scenario(path, spec)
    try:
        tier: Tier | None = scenario_tier(scenario, spec)
    except Exception:  # noqa: BLE001 - the caller computes it again and reports what goes wrong
        tier = None
    return Loaded(scenario, tier)


def _store(entry: Path, scenario: Loaded) -> None:
    try:
        entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            pickle.dump(scenario, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, entry)  # atomic: parallel workers never read half an entry
    except (OSError, pickle.PicklingError, TypeError):
        pass
