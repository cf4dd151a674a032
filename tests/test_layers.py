"""The import direction of the layers (ARCHITECTURE.md), read from every module's import
statements (top-level and inside functions alike): imports go only downward, never across to a
sibling layer, the harness never imports the rules site or the reference engine, and the
reference engine imports only the contract."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "conformance" / "canasta_conformance"
REFERENCE = ROOT / "reference_impl" / "canasta_reference"
SITE = ROOT / "rules_site" / "canasta_site"

#: what each layer of canasta_conformance may import from the package (itself included); the
#: package's root holds only ``__version__``, which any layer may read
ALLOWED = {
    "contract": {"contract"},
    "running": {"contract", "running"},
    "transports": {"contract", "transports"},
    "pytest_plugin": {"contract", "running", "transports", "pytest_plugin"},
    "tools": {"contract", "running", "transports", "pytest_plugin", "tools"},
}
#: the other packages: the reference engine sits on the contract; the rules site on the contract
#: and the run machinery
OUTSIDE = {"canasta_reference": {"contract"}, "canasta_site": {"contract", "running"}}


def _module_name(path: Path) -> str:
    parts = path.relative_to(_package_root(path)).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_root(path: Path) -> Path:
    for root in (HARNESS, REFERENCE, SITE):
        if path.is_relative_to(root):
            return root.parent
    raise AssertionError(path)


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute module or module.name) for every import in ``path``."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:  # `from pkg import module` imports pkg.module
                yield node.lineno, f"{target}.{alias.name}"


def _layer(name: str) -> str | None:
    """The harness layer of a dotted name below canasta_conformance (None for the package root)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else None


def _sources(package: Path) -> list[Path]:
    return sorted(package.rglob("*.py"))


def wrong_imports(path: Path) -> list[str]:
    module = _module_name(path)
    top = module.split(".")[0]
    found = []
    for line, name in imports(path):
        target = name.split(".")[0]
        where = f"{path.relative_to(ROOT)}:{line}: {module} imports {name}"
        if target == "canasta_conformance":
            layer = _layer(name)
            if layer is None:
                if name not in ("canasta_conformance.__version__", "canasta_conformance"):
                    found.append(f"{where} (the package root holds only __version__)")
                continue
            if top == "canasta_conformance":
                own = _layer(module)
                allowed = ALLOWED[own] if own else set(ALLOWED)  # the root's __main__ starts the CLI
            else:
                allowed = OUTSIDE.get(top, set())
            if layer not in allowed:
                found.append(f"{where} (the {own if top == 'canasta_conformance' else top} layer may import only {', '.join(sorted(allowed))})")
        elif target == "canasta_site" and top != "canasta_site":
            found.append(f"{where} (the rules site is built on the harness, never the other way)")
        elif target == "canasta_reference" and top != "canasta_reference":
            found.append(f"{where} (engines are found by name through the engine protocol, never imported)")
    return found


@pytest.mark.parametrize("package", [HARNESS, REFERENCE, SITE], ids=lambda p: p.name)
def test_every_import_goes_down_a_layer(package: Path) -> None:
    assert [problem for path in _sources(package) for problem in wrong_imports(path)] == []


def test_every_harness_module_is_in_a_layer() -> None:
    loose = [p.name for p in HARNESS.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert loose == []
    assert sorted(p.name for p in HARNESS.iterdir() if p.is_dir() and (p / "__init__.py").exists()) == sorted(ALLOWED)


def test_no_import_cycle_between_harness_modules() -> None:
    graph: dict[str, set[str]] = {}
    modules = {_module_name(p) for p in _sources(HARNESS)}
    for path in _sources(HARNESS):
        edges = set()
        for _, name in imports(path):
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != _module_name(path) and not name.endswith(tuple(f".{layer}" for layer in ALLOWED)) and name != "canasta_conformance":
                edges.add(name)
        graph[_module_name(path)] = edges
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*trail[trail.index(nxt):], nxt]))
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_the_check_catches_an_upward_import(tmp_path: Path) -> None:
    """The checker itself: an import up a layer, across to a sibling, of the site or of the
    reference engine is found."""
    contract = HARNESS / "contract" / "cards.py"
    source = "from ..running.runner import Result\nfrom ..transports import protocol\nimport canasta_site\nfrom canasta_reference import engine\n"
    original = contract.read_text(encoding="utf-8")
    found = _wrong_imports_of(contract, original + source)
    assert [line.split(" imports ")[1].split(" (")[0] for line in found] == [
        "canasta_conformance.running.runner.Result", "canasta_conformance.transports.protocol", "canasta_site", "canasta_reference.engine",
    ]
    running = HARNESS / "running" / "runner.py"
    assert _wrong_imports_of(running, "from ..transports.protocol import PROTOCOL_VERSION\n")
    reference = REFERENCE / "engine.py"
    assert _wrong_imports_of(reference, "from canasta_conformance.running.diff import position_diff\n")
    assert not _wrong_imports_of(reference, "from canasta_conformance.contract.model import Position\n")


def _wrong_imports_of(path: Path, text: str) -> list[str]:
    """wrong_imports of ``path`` as if it held ``text`` (the file is not touched)."""
    original = Path.read_text

    def read_text(self: Path, *args: object, **kwargs: object) -> str:
        return text if self == path else original(self, *args, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "read_text", read_text)
        return wrong_imports(path)
