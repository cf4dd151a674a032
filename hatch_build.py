"""Build hook: the wheel carries the corpus exported as JSON (``canasta export``), generated from
spec/ and scenarios/ when the wheel is built, under ``canasta_conformance/_data/export``."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CorpusExportHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":  # a checkout exports on demand: canasta export DIR
            return
        sources = str(Path(self.root) / "conformance")
        sys.path.insert(0, sources)
        try:
            from canasta_conformance.tools.export import export_corpus
        finally:
            sys.path.remove(sources)
        self._folder = tempfile.TemporaryDirectory(prefix="canasta-export-")
        export_corpus(Path(self._folder.name))
        build_data["force_include"][self._folder.name] = "canasta_conformance/_data/export"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        folder = getattr(self, "_folder", None)
        if folder is not None:
            folder.cleanup()
