"""Which files are scenario files: recognised by where they are and their extension, never by
their content (cheap: the pytest plugin asks for every file a run collects)."""

from __future__ import annotations

from pathlib import Path

#: the folder name that makes the YAML files in it (and below it) scenario files
SCENARIOS_FOLDER = "scenarios"
SCENARIO_SUFFIXES = (".yaml", ".yml")


def is_scenario_file(path: Path, root: Path | None = None) -> bool:
    """A scenario file is a YAML file (``.yaml`` or ``.yml``) in a folder named ``scenarios``
    or below one (below ``root`` when given). Its content is not looked at: a file that looks like
    a scenario by where it is, but cannot be read, is reported rather than skipped."""
    if path.suffix not in SCENARIO_SUFFIXES:
        return False
    folder = path.parent
    if root is not None:
        try:
            folder = folder.relative_to(root)
        except ValueError:
            pass
    return SCENARIOS_FOLDER in folder.parts
