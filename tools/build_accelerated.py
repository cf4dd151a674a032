"""Build (or remove) the optional compiled reference engine: its modules compiled with mypyc.

    python tools/build_accelerated.py            # compile the engine in place (1-3 minutes of CPU)
    python tools/build_accelerated.py --check    # is a compiled build present, and does it match the sources?
    python tools/build_accelerated.py --clean    # remove it: the engine runs as Python source again

The build is for a checkout (or an editable install of one) and needs mypy (which brings mypyc),
setuptools and a C compiler; nothing else changes. Every module of ``canasta_reference`` but the
package root and ``_build.py`` is compiled into an extension module placed next to its source, and
Python imports an extension module in preference to the ``.py`` of the same name, so the engine
then runs compiled; the source stays the one definition of the rules. The extension modules and
the stamp (``_compiled.json``: a digest of each source compiled and of each module of the
conformance contract it imports, directly or not) are ignored by git. At import the package
compares the stamp with those files and refuses a stale build (rebuild, or ``--clean``).
The engine declares its version as ``0.1.0+compiled`` when it runs compiled, so ``canasta run``'s
header line and the protocol's handshake say which build answered.

The default install, CI and the README's commands run the engine as pure Python; the compiled
build must pass the same tests (``tests/test_compiled_build.py`` runs when one is present). What
it gains: benchmarks/README.md ("The optional compiled engine").
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "reference_impl" / "canasta_reference"
#: the shared library of the compiled modules, inside the engine's package
GROUP = "canasta_reference._compiled"


def _build_module() -> ModuleType:
    """``canasta_reference/_build.py`` loaded by path (importing the package would refuse a stale build)."""
    spec = importlib.util.spec_from_file_location("canasta_reference_build", ENGINE / "_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _extension_modules(folder: Path) -> list[Path]:
    from importlib.machinery import EXTENSION_SUFFIXES

    return sorted(p for p in folder.iterdir() if p.name.endswith(tuple(EXTENSION_SUFFIXES)))


def clean(quiet: bool = False) -> int:
    """Remove the extension modules that shadow a source (and the shared library, and the stamp)."""
    b = _build_module()
    removed = []
    for path in _extension_modules(ENGINE):
        stem = path.name.split(".")[0]
        if (ENGINE / f"{stem}.py").exists() or stem == "_compiled__mypyc":
            path.unlink()
            removed.append(path)
    if b.STAMP.exists():
        b.STAMP.unlink()
        removed.append(b.STAMP)
    if not quiet:
        print(f"removed {len(removed)} files: the engine runs as Python source" if removed else "no compiled build to remove")
    return 0


def build() -> int:
    try:
        from mypyc.build import mypycify
        from setuptools import Distribution  # type: ignore[import-untyped,unused-ignore]
    except ImportError as error:
        print(f"the compiled build needs mypy (mypyc) and setuptools: {error} (pip install mypy setuptools)", file=sys.stderr)
        return 2
    b = _build_module()
    sources = b.engine_sources()
    clean(quiet=True)  # never leave a mix of old and new extension modules
    started = time.monotonic()
    previous = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="canasta-accelerated-") as work:
        os.chdir(ROOT)  # mypy reads its settings (strict, mypy_path) from pyproject.toml here
        try:
            extensions = mypycify([str(p.relative_to(ROOT)) for p in sources], opt_level="3", group_name=GROUP, target_dir=f"{work}/c")
            # a bare Distribution: setup() would read the project's pyproject.toml as setuptools metadata
            dist = Distribution({
                "name": "canasta-accelerated", "ext_modules": extensions,
                "package_dir": {"canasta_reference": "reference_impl/canasta_reference"},
            })
            command: Any = dist.get_command_obj("build_ext")
            command.inplace, command.build_temp, command.build_lib = True, f"{work}/temp", f"{work}/lib"
            dist.run_command("build_ext")
        except BaseException:
            clean(quiet=True)
            raise
        finally:
            os.chdir(previous)
    import mypy.version

    b.STAMP.write_text(json.dumps({
        "python": platform.python_version(), "mypy": mypy.version.__version__,
        "sources": {str(p.relative_to(ROOT)): b.digest(p) for p in sources},
        "dependencies": {str(p.relative_to(ROOT)): b.digest(p) for p in b.dependencies(sources)},
    }, indent=2) + "\n", encoding="utf-8")
    print(f"compiled {len(sources)} modules with mypyc in {time.monotonic() - started:.0f} s: the engine now runs compiled "
          f"('python tools/build_accelerated.py --clean' to go back to pure Python)")
    return 0


def check() -> int:
    b = _build_module()
    reason = b.stale_reason()
    if reason is not None:
        print(f"stale compiled build: {reason} (rebuild, or --clean)")
        return 1
    if b.build() == "pure":
        print("no compiled build: the engine runs as Python source")
        return 1
    stamp = json.loads(b.STAMP.read_text(encoding="utf-8"))
    compiled = stamp["sources"]
    print(f"compiled build, up to date: {len(compiled)} modules ({', '.join(Path(name).stem for name in compiled)}), "
          f"compiled against {len(stamp['dependencies'])} modules of the contract, unchanged")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--clean", action="store_true", help="remove the compiled build")
    action.add_argument("--check", action="store_true", help="exit 0 if a compiled build matching the sources is present")
    args = parser.parse_args()
    if args.clean:
        return clean()
    if args.check:
        return check()
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        print("the compiled build needs a C compiler (cc or gcc)", file=sys.stderr)
        return 2
    return build()


if __name__ == "__main__":
    sys.exit(main())
