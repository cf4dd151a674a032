"""Loaded scenarios cached on disk, so an unchanged file is neither parsed nor validated again.

An entry is keyed by the file's path and bytes, inside a folder keyed by everything else that
decides what a file loads to: the spec (every file under its root, schemas included), the
harness's own source, and the Python version. Change any of them and the entries are simply not
found. Only scenarios that loaded without a problem are stored, so every error message is made
fresh. An entry holds what collecting a scenario needs (its id, rules, rule areas and tier, the
tier computed under the same spec) beside the scenario itself pickled once more, so that reading
an entry does not rebuild the scenario: that waits until a process runs it (an xdist worker
may collect scenarios another worker runs). Entries are pickles written
atomically by this user into a folder only this user can read (``$CANASTA_CACHE_DIR``, else
``$XDG_CACHE_HOME/canasta-rules``, else ``~/.cache/canasta-rules``); ``CANASTA_CACHE_DIR=off``
turns the cache off. A cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..contract.disk_cache import ENVIRONMENT_VARIABLE, OFF, cache_root, read_entry, write_entry
from ..contract.disk_cache import context as _context
from ..contract.tier_records import Tier

# the scenario module (YAML, JSON Schema, the checks) loads only to parse a file: collecting from
# the cache needs none of it
if TYPE_CHECKING:
    from ..contract.scenario import Scenario
    from ..contract.spec import Spec

__all__ = ["ENVIRONMENT_VARIABLE", "OFF", "Loaded", "cache_root", "load_cached", "load_scenario_cached"]


def _entry(folder: Path, path: Path, data: bytes) -> Path:
    key = hashlib.blake2b(str(path).encode() + b"\0" + data, digest_size=20).hexdigest()
    return folder / key[:2] / f"{key}.pickle"


@dataclass(frozen=True)
class Loaded:
    """A loaded scenario as collection sees it: its id, rules, rule areas and tier
    (:func:`~..contract.tiers.scenario_tier` under the same spec; None if the spec could not give
    it), and the scenario itself, read from a cache entry only when :meth:`scenario` is called."""

    id: str
    rules: tuple[str, ...]
    rule_areas: tuple[str, ...]
    tier: Tier | None
    #: the scenario, or (read from an entry) the scenario pickled
    held: Scenario | bytes

    @classmethod
    def of(cls, scenario: Scenario, tier: Tier | None) -> Loaded:
        return cls(scenario.id, scenario.rules, scenario.rule_areas, tier, scenario)

    def scenario(self) -> Scenario:
        """The scenario (unpickled afresh from an entry at each call: the caller keeps it)."""
        held = self.held
        if isinstance(held, bytes):
            found: Scenario = pickle.loads(held)
            return found
        return held

    def packed(self) -> Loaded:
        """This entry with the scenario pickled, as stored."""
        held = self.held
        return self if isinstance(held, bytes) else Loaded(self.id, self.rules, self.rule_areas, self.tier,
                                                           pickle.dumps(held, protocol=pickle.HIGHEST_PROTOCOL))


def load_scenario_cached(path: Path, spec: Spec) -> Scenario:
    """:func:`~..contract.scenario.load_scenario`, answered from the cache when the file and its
    context are unchanged."""
    return load_cached(path, spec).scenario()


def load_cached(path: Path, spec: Spec) -> Loaded:
    """The scenario of ``path`` (as :func:`~..contract.scenario.load_scenario`) with its tier,
    answered from the cache when the file and its context are unchanged (what the pytest plugin
    collects). Raises what ``load_scenario`` raises for a file that does not load."""
    root = cache_root()
    if root is None:
        return _loaded(path, spec)
    try:
        data = path.read_bytes()
    except OSError:
        return _loaded(path, spec)  # let the loader report the problem
    entry = _entry(root / _context(str(spec.root)), path, data)
    found = read_entry(entry)
    if isinstance(found, Loaded) and isinstance(found.held, bytes):
        return found
    loaded = _loaded(path, spec)
    try:
        write_entry(entry, loaded.packed())
    except (pickle.PicklingError, TypeError, AttributeError):
        pass  # a scenario that does not pickle is loaded afresh next time
    return loaded


def load_scenario(path: Path, spec: Spec) -> Scenario:
    """The file parsed and checked (:func:`~..contract.scenario.load_scenario`)."""
    from ..contract.scenario import load_scenario as load

    return load(path, spec)


def scenario_tier(scenario: Scenario, spec: Spec) -> Tier:
    """:func:`~..contract.tiers.scenario_tier`."""
    from ..contract.tiers import scenario_tier as tier

    return tier(scenario, spec)


def _loaded(path: Path, spec: Spec) -> Loaded:
    scenario = load_scenario(path, spec)
    try:
        tier: Tier | None = scenario_tier(scenario, spec)
    except Exception:  # noqa: BLE001 - the caller computes it again and reports what goes wrong
        tier = None
    return Loaded.of(scenario, tier)
