"""Which build of the engine runs: its Python source ("pure") or the optional compiled build.

``tools/build_accelerated.py`` compiles the engine's modules with mypyc into extension modules
placed next to their sources (an extension module is imported in preference to the ``.py`` of the
same name) and writes a stamp, ``_compiled.json``, with a digest of every source it compiled and
of every module of the conformance contract it was compiled against (the compiled code reads
their classes as they were then). This module is never compiled and imports only the standard
library: the build tool loads it by file path, and the package checks at import that a compiled
build matches its sources and those dependencies, so stale compiled code never runs in place of
changed source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

try:  # mypyc reads this class decorator when it compiles the engine; it comes with mypy
    from mypy_extensions import mypyc_attr as mypyc_attr
except ImportError:  # a plain install runs the engine as Python source: the decorator changes nothing

    def mypyc_attr(*attrs: str, **settings: object) -> Callable[[T], T]:
        return lambda cls: cls

PACKAGE = Path(__file__).resolve().parent
#: the checkout (or install) root that holds ``reference_impl/`` and ``conformance/``
ROOT = PACKAGE.parent.parent
STAMP = PACKAGE / "_compiled.json"
#: the modules that are never compiled: the package root and this module
NEVER_COMPILED = ("__init__.py", "_build.py")
#: where the packages the engine imports from other folders of the checkout live (the conformance
#: contract: cards, model, variant_rules...)
DEPENDENCY_ROOTS = (ROOT / "conformance",)


def digest(path: Path) -> str:
    import hashlib  # only where a build stamp is read or written: not on every import of the engine

    return hashlib.sha256(path.read_bytes()).hexdigest()


def engine_sources() -> list[Path]:
    """The engine's modules a build compiles (every module of the package but ``NEVER_COMPILED``)."""
    return sorted(p for p in PACKAGE.glob("*.py") if p.name not in NEVER_COMPILED)


def dependencies(sources: Iterable[Path]) -> list[Path]:
    """The modules of the checkout outside the engine (under ``DEPENDENCY_ROOTS``) that the
    ``sources`` import, directly or through one another: mypy reads their types when the engine
    is compiled, and the compiled code relies on them, so a change in any of them makes a build stale."""
    import ast  # only where a build stamp is written

    found: set[Path] = set()
    queue = list(sources)
    while queue:
        path = queue.pop()
        package = _module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else _module_name(path)
        for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the importing module's package
                    base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], *([base] if base else [])])
                names = [base, *(f"{base}.{alias.name}" for alias in node.names)]  # (a name may be a submodule)
            for name in names:
                module = _module_file(name)
                if module is not None and module not in found:
                    found.add(module)
                    queue.append(module)
    return sorted(found)


def _module_name(path: Path) -> str:
    """The dotted name of a module file of the engine or of a dependency root."""
    for root in (PACKAGE.parent, *DEPENDENCY_ROOTS):
        if path.is_relative_to(root):
            parts = path.relative_to(root).with_suffix("").parts
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    raise ValueError(f"{path} is neither in the engine's folder nor under {', '.join(map(str, DEPENDENCY_ROOTS))}")


def _module_file(name: str) -> Path | None:
    """The file of the module ``name`` under ``DEPENDENCY_ROOTS`` (None: elsewhere, or no module)."""
    for root in DEPENDENCY_ROOTS:
        base = root.joinpath(*name.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if name and candidate.is_file():
                return candidate
    return None


def compiled_modules() -> list[Path]:
    """The extension modules of the package that shadow a module's source."""
    return sorted(p for p in PACKAGE.iterdir() if p.name.endswith(tuple(EXTENSION_SUFFIXES)) and not p.name.startswith("_compiled__mypyc"))


def build() -> str:
    """``"compiled"`` when the engine's modules are a compiled build, ``"pure"`` otherwise."""
    return "compiled" if STAMP.exists() or compiled_modules() else "pure"


def stale_reason() -> str | None:
    """Why the compiled build present does not match the sources (None: it matches, or none is present)."""
    if not STAMP.exists():
        found = compiled_modules()
        return f"{found[0].name} and {len(found) - 1} more extension modules have no build stamp ({STAMP.name})" if found else None
    import json

    try:
        stamp = json.loads(STAMP.read_text(encoding="utf-8"))
        recorded: dict[str, str] = stamp["sources"]
        compiled_against: dict[str, str] = stamp["dependencies"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return f"unreadable build stamp {STAMP}: {error}"
    current = {str(p.relative_to(ROOT)): p for p in engine_sources()}
    for name in sorted(set(current) - set(recorded)):
        return f"{name} is new since the build"
    for name, sha in sorted({**recorded, **compiled_against}.items()):
        path = ROOT / name
        if not path.exists():
            return f"{name} was removed since the build"
        if digest(path) != sha:
            return f"{name} changed since the build"
    compiled = {p.name.split(".", 1)[0] for p in compiled_modules()}
    for name, path in sorted(current.items()):
        if path.stem not in compiled:
            return f"{name} has no compiled module (a part of the build was removed)"
    return None


def check() -> None:
    """Refuse to import a compiled build made from other sources: it would run old code in place of the new."""
    reason = stale_reason()
    if reason is not None:
        raise ImportError(
            f"the compiled build of the reference engine in {PACKAGE} is stale ({reason}): rebuild it with "
            "'python tools/build_accelerated.py', or remove it with 'python tools/build_accelerated.py --clean'"
        )
