"""YAML reading: strict and bounded, with line numbers for every problem.

Every data file (spec and scenarios) is read by :func:`read_yaml`: UTF-8 without a byte-order mark,
no control characters, no aliases (an alias bomb would expand without bound), no duplicate keys,
no integers longer than :data:`MAX_INT_DIGITS` digits, at most :data:`MAX_FILE_BYTES` bytes. Each of
these is a :class:`Problem` (``file:line: message``) carried by a :class:`YamlError`, never a
traceback. Parsing and composing run in libyaml (the C loader) when PyYAML has it.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from .docpath import PathPart, format_path
from .errors import CanastaError

# PyYAML loads with the first file parsed (each function imports it): a process that reads the spec
# and the scenarios back from the disk cache parses no YAML and needs none of it


@cache
def _loader() -> type:
    """libyaml's safe loader, else PyYAML's own."""
    import yaml

    try:
        loader: type = yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - PyYAML built without libyaml
        loader = yaml.SafeLoader
    return loader


#: a data file larger than this is refused unread (the largest spec file is a few tens of KB)
MAX_FILE_BYTES = 4_000_000
#: integers longer than this are refused (Python refuses to convert 4,300 digits and more)
MAX_INT_DIGITS = 30
#: a problem's message is cut to this many characters (it may quote a value of the file)
MESSAGE_CHARS = 300
#: at most this many characters of a value are quoted in a message
EXCERPT_CHARS = 40

_NOT_PRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_INT_TAG = "tag:yaml.org,2002:int"
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """``repr(value)``, cut to about ``limit`` characters (a message never quotes a whole document)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def shorten(message: str, limit: int = MESSAGE_CHARS) -> str:
    if len(message) <= limit:
        return message
    return f"{message[:limit]}... ({len(message)} characters in all)"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a data file, reported as ``file:line: path: message``
    (``file:line: message`` for a problem of the file itself, whose ``path`` is None)."""

    file: str
    line: int
    path: str | None
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", shorten(self.message))

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        if self.path is None:
            return f"{where}: {self.message}"
        return f"{where}: {self.path or '(top)'}: {self.message}"


class YamlError(CanastaError, ValueError):
    """A file that cannot be read as YAML data; ``problems`` has every problem found (at least one)."""

    def __init__(self, problem: Problem, *more: Problem) -> None:
        super().__init__("\n".join(str(p) for p in (problem, *more)))
        self.problem = problem
        self.problems = [problem, *more]


@dataclass
class YamlDocument:
    """A parsed YAML file that can tell the line of any path inside it."""

    path: Path
    text: str
    data: Any
    _root: Any = field(default=None, repr=False)

    def line_of(self, parts: Sequence[PathPart]) -> int:
        """1-based line of the node at ``parts`` (or of its nearest existing parent)."""
        import yaml

        if self._root is None:
            self._root = yaml.compose(self.text, Loader=_loader())
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
    """Read a YAML data file strictly; anything wrong is a :class:`YamlError` with its line."""
    shown = display_path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise YamlError(Problem(shown, 0, None, f"the file has {size} bytes, more than the {MAX_FILE_BYTES} a data file may have"))
        raw = path.read_bytes()
    except OSError as error:
        raise YamlError(Problem(shown, 0, None, f"cannot read the file: {error.strerror or error}")) from None
    return parse_yaml(decode_text(raw, shown), path)


def decode_text(raw: bytes, shown: str) -> str:
    """The text of a data file: UTF-8 without a byte-order mark, without control characters."""
    if raw.startswith(codecs.BOM_UTF8):
        raise YamlError(Problem(shown, 1, None, "the file starts with a byte-order mark (BOM): save it as UTF-8 without BOM"))
    if raw.startswith(_UTF16_BOMS):
        raise YamlError(Problem(shown, 1, None, "the file is UTF-16: save it as UTF-8"))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise YamlError(Problem(shown, line, None, f"not UTF-8: byte 0x{raw[error.start]:02x} at column {column} (save the file as UTF-8)")) from None
    bad = _NOT_PRINTABLE.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise YamlError(Problem(shown, line, None, f"control character U+{ord(bad.group()):04X} at column {column}: YAML does not allow it"))
    return text


def parse_yaml(text: str, path: Path) -> YamlDocument:
    """Parse decoded text: syntax, aliases, duplicate keys and huge integers are problems."""
    import yaml

    shown = display_path(path)
    try:
        root = yaml.compose(text, Loader=_loader())
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        line = mark.line + 1 if mark else 0
        raise YamlError(Problem(shown, line, None, f"YAML syntax: {error.problem} ({error.context})" if error.context else f"YAML syntax: {error.problem}")) from None
    except yaml.YAMLError as error:  # a reader error: the text checks above should have caught it
        raise YamlError(Problem(shown, 0, None, f"YAML: {error}")) from None
    problems = list(_node_problems(root, text, shown))
    if problems:
        raise YamlError(*problems)
    try:
        data = yaml.constructor.SafeConstructor().construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        raise YamlError(Problem(shown, mark.line + 1 if mark else 0, None, f"YAML: {error.problem}")) from None
    except (ValueError, TypeError, RecursionError) as error:
        line = root.start_mark.line + 1 if root is not None else 0
        raise YamlError(Problem(shown, line, None, f"YAML: {error}")) from None
    return YamlDocument(path, text, data, root)


def _node_problems(root: Any, text: str, shown: str) -> Iterator[Problem]:
    """Aliases, duplicate keys and huge integers, walking the composed nodes without recursion."""
    import yaml

    if root is None:
        return
    seen: set[int] = set()
    stack: list[tuple[Any, tuple[PathPart, ...]]] = [(root, ())]
    aliased = False
    while stack:
        node, parts = stack.pop()
        if id(node) in seen:  # the composer shares the anchored node: this is an alias
            aliased = True
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            digits = node.value.lstrip("+-").replace("_", "")
            if node.tag == _INT_TAG and len(digits) > MAX_INT_DIGITS:
                yield Problem(shown, node.start_mark.line + 1, format_path(parts), f"an integer of {len(digits)} digits: at most {MAX_INT_DIGITS} are allowed")
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, (*parts, index)) for index, child in reversed(list(enumerate(node.value))))
        elif isinstance(node, yaml.MappingNode):
            first_line: dict[tuple[str, str], int] = {}
            children = []
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    line = key.start_mark.line + 1
                    earlier = first_line.get((key.tag, key.value))
                    first_line.setdefault((key.tag, key.value), line)
                    if earlier is not None:
                        yield Problem(shown, line, format_path((*parts, key.value)), f"duplicate key {excerpt(key.value)} (first at line {earlier}): YAML keeps only one")
                    children.append((key, parts))
                    children.append((value, (*parts, key.value)))
                else:
                    children.append((key, parts))
                    children.append((value, (*parts, "?")))
            stack.extend(reversed(children))
    if aliased:
        yield _alias_problem(text, shown)


def _alias_problem(text: str, shown: str) -> Problem:
    """The line of the first alias (only read again when there is one)."""
    import yaml

    line = 0
    try:
        for event in yaml.parse(text, Loader=_loader()):
            if isinstance(event, yaml.AliasEvent):
                line = event.start_mark.line + 1 if event.start_mark is not None else 0
                break
    except yaml.YAMLError:  # pragma: no cover - the text composed once already
        pass
    return Problem(shown, line, None, "a YAML alias (*name): aliases and merge keys are not allowed in data files, write the value out")


@cache
def _cached(path: str, mtime: float) -> YamlDocument:
    return read_yaml(Path(path))


def read_yaml_cached(path: Path) -> YamlDocument:
    """Read a YAML file once per process (spec files are read by many consumers)."""
    return _cached(str(path), path.stat().st_mtime)
