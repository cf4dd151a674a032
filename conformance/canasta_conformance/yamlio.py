"""YAML reading: the C safe loader for speed, and line numbers on demand for error messages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

PathPart = str | int


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a data file, reported as ``file:line: path: message``."""

    file: str
    line: int
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.path or '(top)'}: {self.message}"


def format_path(parts: Sequence[PathPart]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse_path(text: str) -> list[PathPart]:
    """The inverse of :func:`format_path`: ``position.hands[0][1]`` -> [position, hands, 0, 1]."""
    parts: list[PathPart] = []
    for piece in text.split("."):
        name, *indices = piece.split("[")
        if name:
            parts.append(name)
        parts.extend(int(i.rstrip("]")) for i in indices if i.rstrip("]").isdigit())
    return parts


class YamlError(ValueError):
    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


@dataclass
class YamlDocument:
    """A parsed YAML file that can tell the line of any path inside it."""

    path: Path
    text: str
    data: Any
    _root: Any = field(default=None, repr=False)

    def line_of(self, parts: Sequence[PathPart]) -> int:
        """1-based line of the node at ``parts`` (or of its nearest existing parent)."""
        if self._root is None:
            self._root = yaml.compose(self.text, Loader=_Loader)
        node = self._root
        line = node.start_mark.line + 1 if node is not None else 1
        for part in parts:
            child = None
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if key.value == str(part):
                        child = value
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
                child = node.value[part]
            if child is None:
                break
            node = child
            line = node.start_mark.line + 1
        return line

    def problem(self, parts: Sequence[PathPart], message: str) -> Problem:
        return Problem(display_path(self.path), self.line_of(parts), format_path(parts), message)


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def read_yaml(path: Path) -> YamlDocument:
    """Read a YAML file; a syntax error becomes a :class:`YamlError` with its line."""
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        line = mark.line + 1 if mark else 0
        raise YamlError(Problem(display_path(path), line, "", f"YAML syntax: {error.problem}")) from None
    return YamlDocument(path, text, data)


@cache
def _cached(path: str, mtime: float) -> YamlDocument:
    return read_yaml(Path(path))


def read_yaml_cached(path: Path) -> YamlDocument:
    """Read a YAML file once per process (spec files are read by many consumers)."""
    return _cached(str(path), path.stat().st_mtime)
