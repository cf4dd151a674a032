"""Where a value sits inside a document: the keys and list indexes that lead to it.

Errors carry the path as these parts (a line number is looked up from them, never from text);
:func:`format_path` writes them for people: ``position.hands[0][1]``.
"""

from __future__ import annotations

from collections.abc import Sequence

PathPart = str | int
#: the path to a value, from the document's top: ("position", "hands", 0, 1)
DocPath = tuple[PathPart, ...]


def format_path(parts: Sequence[PathPart]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
