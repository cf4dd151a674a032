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


def report(data: dict[str, Any], reasons: dict[str, str]) -> str:
    results = data["results"]
    survivors = [r for r in results if r["status"] == "survived"]
    skipped = [r for r in results if r["status"] == "skipped"]
    lines = [
        "# Mutation score of the scenario corpus",
        "",
        "How strong is the corpus? `tools/mutate.py` makes small changes to the reference engine's rule",
        "modules (one operator, constant or statement each: a comparison flipped or loosened, `and`/`or`",
        "swapped, a `not` dropped, a number moved by one, a `raise` or a call removed...), runs the",
        "corpus against each changed engine in-process, and counts the mutant *killed* when a scenario",
        "fails, errs, times out, cites another rule than the scenario expects, or is not supported.",
        "The corpus alone is the test set: no unit test of the engine is involved.",
        "",
        "Reproduce (about 5-10 minutes with two workers on an idle machine):",
        "",
        "```sh",
        "python tools/mutate.py --jobs 2            # writes benchmarks/mutation/results.json",
        "python tools/mutation_report.py            # writes this page from it",
        "```",
        "",
        f"Run of {len(results)} mutants in {data.get('seconds', 0):.0f} s with {data.get('jobs', 1)} worker(s)"
        + (f" on commit {data['commit']}" if data.get("commit") else "") + " (a shared, busy machine: times are not a benchmark).",
        "",
        "```text",
        summary(results),
        "```",
        "",
        "CI runs a small fixed sample (tests/test_mutation_tool.py). To hunt a scenario that kills a",
        "survivor, put the mutant behind the protocol and fuzz it against the reference:",
        "`canasta fuzz --engine-cmd \"python tools/mutate.py --serve ID\" --minutes 2 --out found/`",
        "(then review the scenario as docs/guides/fuzzing.md says).",
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
