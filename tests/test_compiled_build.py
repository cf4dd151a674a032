"""The optional compiled engine (tools/build_accelerated.py, mypyc).

A stale build (made from other sources) is refused at import, in any checkout. The tests marked
``compiled`` run only where a compiled build is present (or ``CANASTA_COMPILED=1`` demands one):
the engine's modules are extension modules matching the sources, the engine says it runs
compiled, and it answers exactly as the Python source does on random hands of every variant
(positions, legal lists, verdicts with their rules and messages, score sheets). The rest of the
suite runs against whichever build is present: with a build, ``pytest`` tests the compiled
engine (benchmarks/README.md lists the few tests that patch engine internals and so cannot)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

import pytest

import canasta_reference
from canasta_reference import _build
from canasta_reference.engine import ReferenceEngine

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "build_accelerated.py"
COMPILED = _build.build() == "compiled"
compiled = pytest.mark.skipif(
    not COMPILED and os.environ.get("CANASTA_COMPILED") != "1",
    reason="no compiled build of the engine (python tools/build_accelerated.py; CANASTA_COMPILED=1 requires one)",
)


def _source_copy(tmp_path: Path) -> Path:
    """The engine's package as Python source alone (no extension module, no stamp), beside the
    contract's source and the data; returns the package."""
    python_only = shutil.ignore_patterns("__pycache__", *(f"*{suffix}" for suffix in EXTENSION_SUFFIXES), "_compiled.json")
    for folder in ("reference_impl/canasta_reference", "conformance/canasta_conformance"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=python_only)
    for data in ("spec", "scenarios"):
        (tmp_path / data).symlink_to(ROOT / data)
    return tmp_path / "reference_impl" / "canasta_reference"


def _import(package: Path, code: str = "import canasta_reference") -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(package.parent), str(package.parent.parent / "conformance")])
    return subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": path}, capture_output=True, text=True, timeout=120)


def test_the_source_alone_runs_pure(tmp_path: Path) -> None:
    done = _import(_source_copy(tmp_path), "import canasta_reference as r; from canasta_reference.engine import ReferenceEngine as E; "
                   "print(r.build(), E().capabilities().version)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["pure", canasta_reference.__version__]


def _build_module_of(package: Path) -> Any:
    """The copy's own _build module (its paths are the copy's)."""
    spec = importlib.util.spec_from_file_location("copied_build", package / "_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stamped(tmp_path: Path) -> tuple[Path, Any]:
    """A source copy with a build stamp that matches it, as the build tool writes one, and
    stand-ins for the extension modules; returns the package and the copy's _build module."""
    package = _source_copy(tmp_path)
    copied = _build_module_of(package)
    sources = copied.engine_sources()
    assert {p.name for p in sources} == {p.name for p in package.glob("*.py")} - set(_build.NEVER_COMPILED)
    (package / "_compiled.json").write_text(json.dumps({
        "sources": {str(p.relative_to(tmp_path)): _build.digest(p) for p in sources},
        "dependencies": {str(p.relative_to(tmp_path)): _build.digest(p) for p in copied.dependencies(sources)},
    }), encoding="utf-8")
    assert copied.stale_reason() == "reference_impl/canasta_reference/engine.py has no compiled module (a part of the build was removed)"
    for p in sources:  # stand-ins for the extension modules (never loaded: the package refuses first)
        (package / f"{p.stem}{EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    assert copied.stale_reason() is None  # the stamp matches the sources, every module is there: accepted
    return package, copied


def test_a_build_stamp_that_does_not_match_the_sources_is_refused_at_import(tmp_path: Path) -> None:
    package, _ = _stamped(tmp_path)
    engine = package / "engine.py"
    engine.write_text(engine.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    done = _import(package)
    assert done.returncode != 0
    assert "ImportError" in done.stderr and "is stale (reference_impl/canasta_reference/engine.py changed since the build)" in done.stderr
    assert "--clean" in done.stderr


def test_the_stamp_covers_the_contract_modules_the_build_was_compiled_against(tmp_path: Path) -> None:
    """The compiled engine reads the contract's classes (cards, the model, the variant view) as
    they were when it was compiled: a change in any module it imports, directly or through
    another, makes the build stale as a change in its own sources does."""
    package, copied = _stamped(tmp_path)
    recorded = json.loads((package / "_compiled.json").read_text(encoding="utf-8"))["dependencies"]
    contract = "conformance/canasta_conformance/contract"
    assert {f"{contract}/cards.py", f"{contract}/model.py", f"{contract}/variant_rules.py"} <= set(recorded)  # imported by the engine
    assert f"{contract}/docpath.py" in recorded  # imported by model.py only
    assert not any("running" in name or "pytest_plugin" in name for name in recorded)  # the harness above the contract is not
    docpath = tmp_path / contract / "docpath.py"
    docpath.write_text(docpath.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert copied.stale_reason() == f"{contract}/docpath.py changed since the build"
    done = _import(package)
    assert done.returncode != 0 and f"is stale ({contract}/docpath.py changed since the build)" in done.stderr


def test_a_stamp_without_the_contract_digests_is_refused(tmp_path: Path) -> None:
    """A build stamp that records no digests of the contract (written before they were recorded)
    cannot vouch for the build: it is refused, and the message says to rebuild."""
    package, _ = _stamped(tmp_path)
    stamp = package / "_compiled.json"
    stamp.write_text(json.dumps({"sources": json.loads(stamp.read_text(encoding="utf-8"))["sources"]}), encoding="utf-8")
    done = _import(package)
    assert done.returncode != 0 and "unreadable build stamp" in done.stderr and "'dependencies'" in done.stderr


def test_extension_modules_without_a_stamp_are_refused(tmp_path: Path) -> None:
    package = _source_copy(tmp_path)
    (package / f"movegen{EXTENSION_SUFFIXES[0]}").write_bytes(b"")  # never loaded: the package refuses first
    done = _import(package)
    assert done.returncode != 0 and "have no build stamp" in done.stderr


@compiled
def test_the_engine_modules_are_a_current_compiled_build() -> None:
    assert COMPILED, "CANASTA_COMPILED=1 but no compiled build: python tools/build_accelerated.py"
    assert _build.stale_reason() is None
    sources = json.loads(_build.STAMP.read_text(encoding="utf-8"))["sources"]
    assert {str(p.relative_to(ROOT)) for p in _build.engine_sources()} <= set(sources)
    for name in sorted(sources):  # reference_impl/canasta_reference/melds.py: canasta_reference.melds
        module = importlib.import_module(".".join(Path(name).with_suffix("").parts[1:]))
        assert str(module.__file__).endswith(tuple(EXTENSION_SUFFIXES)), f"{name} runs from {module.__file__}"
    done = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "up to date" in done.stdout, done.stdout + done.stderr


@compiled
def test_the_compiled_engine_says_so() -> None:
    assert ReferenceEngine().capabilities().version == f"{canasta_reference.__version__}+compiled"
    assert canasta_reference.build() == "compiled"


@compiled
def test_the_compiled_engine_may_be_subclassed() -> None:
    class Quiet(ReferenceEngine):
        def legal_actions(self):  # type: ignore[no-untyped-def]
            return []

    assert Quiet().legal_actions() == []


@compiled
def test_compiled_and_source_engines_answer_alike_on_random_hands_of_every_variant(tmp_path: Path) -> None:
    walks = ROOT / "tests" / "engine_walks.py"
    hands = os.environ.get("CANASTA_COMPILED_HANDS", "2")

    def play(root: Path) -> list[str]:
        path = os.pathsep.join([str(root / "reference_impl"), str(root / "conformance"), str(ROOT / "rules_site")])
        done = subprocess.run([sys.executable, str(walks), "--hands", hands], env={**os.environ, "PYTHONPATH": path},
                              capture_output=True, text=True, timeout=1200)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    compiled_lines = play(ROOT)
    pure_lines = play(_source_copy(tmp_path).parent.parent)
    assert len(compiled_lines) == len(pure_lines)
    for compiled_line, pure_line in zip(compiled_lines, pure_lines, strict=True):
        if compiled_line != pure_line:
            assert json.loads(compiled_line) == json.loads(pure_line)
    ends = [line for line in map(json.loads, compiled_lines) if "step" not in line]
    assert all(line["score"] for line in ends)
    assert len(ends) == len(ReferenceEngine().capabilities().variants) * int(hands)  # every hand played to its end
