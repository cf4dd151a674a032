"""Write benchmarks/mutation/README.md from a tools/mutate.py results file: the score per module,
the command that reproduces it, and every surviving mutant with the reason it survives (from
tools/mutation_reasons.yaml, whose keys are mutant ids or fnmatch patterns of them).

    python tools/mutation_report.py [--results benchmarks/mutation/results.json]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from mutate import summary  # noqa: E402

UNANALYSED = "not analysed yet: a scenario that pins this behaviour is wanted"


def reason_for(mutant_id: str, reasons: dict[str, str]) -> str:
    if mutant_id in reasons:
        return reasons[mutant_id]
    for pattern, reason in reasons.items():
        if fnmatch.fnmatchcase(mutant_id, pattern):
            return reason
    return UNANALYSED


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _reach(total: int, killed: int, kinds: dict[str, int]) -> list[str]:
    """What the score could become: without the mutants no scenario can kill, and with every gap killed."""
    if not total:
        return []
    dead = kinds.get("equivalent", 0) + kinds.get("unreachable", 0)
    gaps = kinds.get("gap", 0) + kinds.get("not analysed", 0)
    return [
        f"Of the {total:,} mutants, {dead} are equivalent or unreachable: the score over the other {total - dead:,} is "
        f"{killed / (total - dead):.1%}, and no corpus can score above {(total - dead) / total:.1%}. Killing every gap "
        f"would give {(killed + gaps) / total:.1%}; more needs the likely equivalent ones killed, or shown equivalent.",
        "",
    ]


def report(data: dict[str, Any], reasons: dict[str, str]) -> str:
    results = data["results"]
    survivors = [r for r in results if r["status"] == "survived"]
    skipped = [r for r in results if r["status"] == "skipped"]
    kinds: dict[str, int] = {}
    for r in survivors:
        reason = reason_for(r["id"], reasons)
        head = reason.split(":", 1)[0]
        kind = "not analysed" if reason == UNANALYSED else "likely equivalent" if head.startswith("likely") else head.split()[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    lines = [
        "# Mutation score of the scenario corpus",
        "",
        "How strong is the corpus? `tools/mutate.py` makes small changes to the reference engine's rule",
        "modules (one operator, constant or statement each: a comparison flipped or loosened, `and`/`or`",
        "swapped, a `not` dropped, a number moved by one, a `raise` or a call removed...), runs the",
        "corpus against each changed engine in-process, and counts the mutant *killed* when a scenario",
        "fails, errs, times out, cites another rule than the scenario expects, or is not supported.",
        "The corpus alone is the test set: no unit test of the engine is involved. The modules measured",
        "are those the engine runs (engine.py and what it imports, directly or not); the move",
        "generator's memo cache is emptied around each mutant.",
        "",
        "Reproduce (one worker: about 20-30 minutes of one core on a busy machine; two workers halve it):",
        "",
        "```sh",
        "nice -n 10 python tools/mutate.py --jobs 1       # writes benchmarks/mutation/results.json",
        "python tools/mutation_report.py                   # writes this page from it and the reasons in tools/mutation_reasons.yaml",
        "# after adding scenarios, re-run only the survivors and merge them into the results:",
        "python tools/mutate.py --survivors-of benchmarks/mutation/results.json --update",
        "```",
        "",
        f"Run of {len(results)} mutants in {data.get('seconds', 0):.0f} s with {data.get('jobs', 1)} worker(s)"
        + (f" on commit {data['commit']}" if data.get("commit") else "")
        + (f"; then {data['updated']}" if data.get("updated") else "")
        + " (a shared, busy machine: times are not a benchmark).",
        "",
        "```text",
        summary(results),
        "```",
        "",
        *(["Earlier measurements:", "", *(f"- {line}" for line in data["history"]), ""] if data.get("history") else []),
        "",
        "Why the survivors survive, by kind (each survivor's reason is in the table below):",
        "",
        *(f"- {kind}: {count}" for kind, count in sorted(kinds.items(), key=lambda kv: -kv[1])),
        "",
        *_reach(len(results) - len(skipped), len(results) - len(skipped) - len(survivors), kinds),
        "*Equivalent*: no scenario can tell the mutant from the reference through the protocol (the",
        "same verdicts, positions, scores and citations, and legal-action lists that differ only by",
        "actions the protocol's list equivalence leaves out or lets in). *Unreachable*: only a",
        "position no play reaches, or one `canasta validate` rejects, shows it. *Likely equivalent*: no",
        "difference found on generated positions and a reason to expect none, not proven mutant by",
        "mutant. *Gap*: a scenario could kill it and is wanted. *Not analysed*: no reason written yet.",
        "",
        "CI runs a small fixed sample (tests/test_mutation_tool.py). To find a position that kills a",
        "survivor, `python tools/hunt_mutants.py --only ID` compares the legal-action lists of the",
        "reference and the mutant on generated positions; or put the mutant behind the protocol and",
        "fuzz it: `canasta fuzz --engine-cmd \"python tools/mutate.py --serve ID\" --minutes 2 --out found/`.",
        "Either way the scenario's expectations come from the rules (docs/guides/fuzzing.md).",
        "",
        f"## Survivors ({len(survivors)})",
        "",
        "| mutant | where | change | why it survives |",
        "| --- | --- | --- | --- |",
    ]
    for r in survivors:
        change = f"`{_cell(r['original'])}` -> `{_cell(r['mutated'])}`"
        lines.append(f"| {r['id']} | {r['module']}.py:{r['line']} | {change} | {_cell(reason_for(r['id'], reasons))} |")
    if skipped:
        lines += ["", f"{len(skipped)} mutants could not be applied (closures): " + ", ".join(r["id"] for r in skipped)]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "mutation" / "results.json")
    parser.add_argument("--reasons", type=Path, default=ROOT / "tools" / "mutation_reasons.yaml")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "mutation" / "README.md")
    args = parser.parse_args()
    data = json.loads(args.results.read_text(encoding="utf-8"))
    reasons = yaml.safe_load(args.reasons.read_text(encoding="utf-8")) or {}
    args.out.write_text(report(data, reasons), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
