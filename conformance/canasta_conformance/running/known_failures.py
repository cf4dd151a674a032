"""An engine author's file of known failures: scenario ID -> why the engine fails it.

The plugin marks those scenarios as strict expected failures (``--canasta-known-failures``): a
listed scenario that fails is reported as xfail, one that passes fails the run, so the file
cannot rot. :func:`updated_known_failures` rewrites the file from a run, keeping the reasons
already written (``canasta known-failures write`` / ``--canasta-write-known-failures``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..contract.errors import CanastaError
from ..contract.schemas import schema_errors
from ..contract.yamlio import Problem, YamlError, display_path, read_yaml

#: statuses that mean "the engine does not pass this scenario" (xfail: it still fails)
FAILING = frozenset({"failed", "error", "xfail"})
#: statuses that prove the engine passes it (rule-differs: its behaviour passes, only a citation differs)
PASSING = frozenset({"passed", "xpass", "rule-differs"})
REASON_CHARS = 200


class KnownFailuresError(CanastaError, ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


def load_known_failures(path: Path) -> dict[str, str]:
    """The file's entries; raises :class:`KnownFailuresError` (``file:line: path: message``)."""
    try:
        document = read_yaml(path)
    except OSError as error:
        raise KnownFailuresError([Problem(display_path(path), 0, "", f"cannot read: {error.strerror or error}")]) from None
    except YamlError as error:
        raise KnownFailuresError([error.problem]) from None
    data = document.data if document.data is not None else {}
    problems = [document.problem(p, m) for p, m in schema_errors("known-failures", data)]
    if problems:
        raise KnownFailuresError(problems)
    return dict(data)


@dataclass(frozen=True)
class KnownFailuresUpdate:
    entries: dict[str, str]
    added: tuple[str, ...]
    removed: tuple[str, ...]


def updated_known_failures(existing: Mapping[str, str], statuses: Mapping[str, str], reasons: Mapping[str, str]) -> KnownFailuresUpdate:
    """The file after a run: every failing scenario (an existing reason is kept, a new one gets
    the failure's message); entries of scenarios the run showed passing are dropped; entries of
    scenarios the run did not decide (not run, or unsupported) are kept."""
    entries = {sid: reason for sid, reason in existing.items() if statuses.get(sid) not in PASSING}
    added = []
    for sid, status in statuses.items():
        if status in FAILING and sid not in entries:
            entries[sid] = _shorten(reasons.get(sid) or status)
            added.append(sid)
    removed = sorted(sid for sid in existing if sid not in entries)
    return KnownFailuresUpdate(dict(sorted(entries.items())), tuple(sorted(added)), tuple(removed))


def write_known_failures(path: Path, entries: Mapping[str, str], engine: str = "the engine") -> None:
    header = (
        f"# Known failures of {engine}: scenario id -> why it fails.\n"
        "# Listed scenarios are expected to fail (xfail); one that passes fails the run: remove it.\n"
        "# Use: pytest --canasta-known-failures FILE (or canasta run ... --canasta-known-failures FILE);\n"
        "# rewrite from a run: canasta known-failures write FILE (reasons written here are kept).\n"
    )
    body = yaml.safe_dump(dict(entries), sort_keys=True, allow_unicode=True, width=1_000_000, default_flow_style=False) if entries else "{}\n"
    path.write_text(header + body, encoding="utf-8")


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 3] + "..."
