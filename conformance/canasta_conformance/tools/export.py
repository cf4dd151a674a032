"""The corpus as plain JSON, for runners in any language (``canasta export DIR``).

The export holds what a runner needs and nothing it would have to compute with this package:

- ``manifest.json``: the spec version, the protocol version, every variant resolved to its full
  parameter set, and one entry per scenario (id, file, area, variant, options, rules, the engine
  features it requires, its tier: ``core`` or ``reading``);
- ``scenarios/AREA/ID.json``: one file per scenario, in the form a runner sends and compares: the
  starting request (``load`` with a complete position, or ``deal``), then the steps, each an action
  as the protocol sends it and its expectations with their defaults made explicit.

``docs/guides/writing-a-runner.md`` states how to read them (what ``expect.position`` means, how
lists compare, unsupported versus failed).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..contract.engine_protocol import DealSetup
from ..contract.errors import CanastaError
from ..contract.paths import scenarios_dir
from ..contract.scenario import Scenario, Step, load_scenarios, scenario_files
from ..contract.spec import Spec, VariantError, load_spec
from ..contract.tiers import scenario_tier
from ..running.scenario_cache import load_scenario_cached
from ..transports.protocol import PROTOCOL_VERSION, deal_to_json

FORMAT = "canasta-corpus"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"


class ExportError(CanastaError, ValueError):
    """The corpus cannot be exported (a broken scenario file, an unresolvable variant)."""


@dataclass(frozen=True)
class Export:
    """What was written: the manifest and the files, relative to the target folder."""

    manifest: Mapping[str, Any]
    files: tuple[str, ...]


def required_features(scenario: Scenario) -> list[str]:
    """The engine features a scenario needs, as the runner decides them: its ``requires``, and
    ``deal`` when it starts from a deck order."""
    return sorted({*scenario.requires, *(["deal"] if scenario.deal is not None else [])})


def scenario_file(scenario: Scenario) -> str:
    return f"scenarios/{scenario.area}/{scenario.id}.json"


def start_request(scenario: Scenario) -> dict[str, Any]:
    """The request that sets up the scenario: ``load`` with the whole position, or ``deal``."""
    if scenario.deal is not None:
        deal = scenario.deal
        setup = DealSetup(scenario.variant, dict(scenario.options), deal.dealer, deal.deck, deal.scores, deal.first_player)
        return {"op": "deal", **deal_to_json(setup)}
    assert scenario.position is not None
    return {"op": "load", "position": scenario.position.to_json()}


def step_json(step: Step, spec: Spec) -> dict[str, Any]:
    expect = step.expect
    out: dict[str, Any] = {"outcome": expect.outcome}
    if expect.outcome == "rejected":
        out["violates"] = list(expect.violates)
        # citations that agree with the step: its own rules and every rule they narrow
        broader = {rule for expected in expect.violates for rule in spec.broader_rules(expected)}
        out["agrees"] = [*expect.violates, *sorted(broader - set(expect.violates))]
    if expect.position is not None:
        out["position"] = _plain(expect.position)
    if expect.hand_over is not None:
        out["hand_over"] = expect.hand_over
    if expect.score is not None:
        out["score"] = [dict(side) for side in expect.score]
    if expect.game is not None:
        out["game"] = dict(expect.game)
    if expect.legal_includes or expect.legal_excludes:
        out["legal_actions"] = {"includes": [a.to_json() for a in expect.legal_includes],
                                "excludes": [a.to_json() for a in expect.legal_excludes]}
    return {"action": step.action.to_json() if step.action is not None else None, "expect": out,
            **({"note": step.note} if step.note else {})}


def _plain(value: Any) -> Any:
    """A YAML-loaded value as plain JSON data (tuples as lists, mapping keys as strings)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def scenario_json(scenario: Scenario, spec: Spec) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": scenario.id, "title": scenario.title, "area": scenario.area, "rules": list(scenario.rules),
        "variant": scenario.variant, "options": _plain(scenario.options), "requires": required_features(scenario),
    }
    out["tier"] = scenario_tier(scenario, spec).name
    if scenario.source:
        out["source"] = scenario.source
    if scenario.notes:
        out["notes"] = scenario.notes
    out["start"] = start_request(scenario)
    out["steps"] = [step_json(step, spec) for step in scenario.steps]
    return out


def manifest_json(scenarios: Iterable[Scenario], spec: Spec) -> dict[str, Any]:
    variants: dict[str, Any] = {}
    for variant_id, variant in spec.variants.items():
        try:
            parameters = spec.variant_parameters(variant_id)
        except VariantError as error:
            raise ExportError(f"variant {variant_id}: {error}") from None
        variants[variant_id] = {"title": variant.title, "base": variant.base, "parameters": _plain(parameters)}
    entries = []
    for scenario in scenarios:
        entry: dict[str, Any] = {
            "id": scenario.id, "file": scenario_file(scenario), "area": scenario.area, "variant": scenario.variant,
            "options": _plain(scenario.options), "requires": required_features(scenario), "rules": list(scenario.rules),
        }
        entry["tier"] = scenario_tier(scenario, spec).name
        entries.append(entry)
    features = sorted({f for entry in entries for f in entry["requires"]})
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "spec_version": spec.version, "protocol": PROTOCOL_VERSION,
        "default_variant": spec.default_variant, "features": features, "variants": variants, "scenarios": entries,
    }


def export_corpus(target: Path, spec: Spec | None = None, scenarios_root: Path | None = None) -> Export:
    """Write the corpus as JSON under ``target`` (created; files of an earlier export replaced)."""
    spec = spec or load_spec()
    # through the scenario cache (as canasta validate): an unchanged file is not parsed and checked again
    scenarios, problems = load_scenarios(scenario_files(scenarios_root or scenarios_dir()), spec, load_scenario_cached)
    if problems:
        raise ExportError("the corpus has problems (run canasta validate):\n" + "\n".join(str(p) for p in problems))
    scenarios.sort(key=lambda s: (s.area, s.id))
    for scenario in scenarios:
        _write(target / scenario_file(scenario), scenario_json(scenario, spec))
    manifest = manifest_json(scenarios, spec)
    _write(target / MANIFEST, manifest)
    return Export(manifest, (MANIFEST, *(scenario_file(s) for s in scenarios)))


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n", encoding="utf-8")
    return path
