"""The harness's cache on disk: where it lives, the digest of everything besides a file that decides
what the file loads to, and entries read and written safely.

Entries are pickles written atomically by this user into a folder only this user can read
(``$CANASTA_CACHE_DIR``, else ``$XDG_CACHE_HOME/canasta-rules``, else ``~/.cache/canasta-rules``);
``CANASTA_CACHE_DIR=off`` turns the cache off. A cache that cannot be read or written is ignored:
a missing, partial or stale entry is a miss. The scenario cache (``running.scenario_cache``) and
the spec (:func:`.spec.load_spec`) keep their entries here.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from functools import cache
from importlib import metadata
from pathlib import Path

from .. import __version__

ENVIRONMENT_VARIABLE = "CANASTA_CACHE_DIR"
OFF = ("", "0", "off", "none", "false")


def cache_root() -> Path | None:
    """Where entries live, or None when the cache is off."""
    value = os.environ.get(ENVIRONMENT_VARIABLE)
    if value is not None:
        return None if value.strip().lower() in OFF else Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "canasta-rules"


@cache
def context(spec_root: str) -> str:
    """A digest of everything besides a scenario file that decides what it loads to: the spec
    (every file under its root, schemas included), the harness's whole source, the Python version
    and the versions of the libraries that read and check the files (PyYAML, jsonschema)."""
    digest = hashlib.blake2b(digest_size=16)
    libraries = "\0".join(metadata.version(name) for name in ("PyYAML", "jsonschema"))
    digest.update(f"{sys.version}\0{__version__}\0{libraries}\0".encode())
    for root in (Path(spec_root), Path(__file__).resolve().parent.parent):  # the spec and the whole package
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in (".yaml", ".yml", ".json", ".py"):
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def read_entry(entry: Path) -> object | None:
    """The value stored at ``entry``, None if there is none that loads."""
    try:
        with entry.open("rb") as handle:
            found: object = pickle.load(handle)
        return found
    except Exception:  # noqa: BLE001 - a missing, partial or stale entry is a miss
        return None


def write_entry(entry: Path, value: object) -> None:
    """Store ``value`` at ``entry`` atomically (parallel processes never read half an entry)."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, entry)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass
