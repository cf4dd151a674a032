"""Reading an engine process's stdout line by line with a timeout, and keeping its stderr's tail.

On POSIX one selector watches both pipes from the calling thread (a round trip costs a few tens
of microseconds); where pipes cannot be selected (Windows) two reader threads feed a queue.
Either way stderr is drained while the harness waits for a reply, so a chatty engine never blocks
on a full pipe, and its last lines are kept for the report of a fault.
"""

from __future__ import annotations

import os
import queue
import selectors
import threading
import time
from collections import deque
from typing import IO, Protocol

from ..contract.errors import CanastaError

STDERR_LINES = 20
#: a stderr line is kept up to this many bytes (an endless line without a newline costs no more)
STDERR_LINE_BYTES = 2000
#: the longest reply line read from an engine (a legal_actions reply of thousands of actions is ~1 MB)
MAX_LINE_BYTES = 16 * 1024 * 1024
_CHUNK = 1 << 16


class ReplyTimeout(CanastaError):
    pass


class LineTooLong(CanastaError):
    """The engine wrote more than the maximum line size without a newline."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"longer than {limit} bytes")
        self.limit = limit


class LineReader(Protocol):
    def read_line(self, timeout: float) -> bytes | None:
        """The next stdout line (with its newline); None at the end of the stream; raises
        :class:`ReplyTimeout` when no full line arrives in time, :class:`LineTooLong` when the
        line grows past the maximum line size."""

    def stderr_tail(self) -> list[str]: ...

    def drain(self, timeout: float) -> None:
        """After the process ended: collect what is left of stderr."""

    def close(self) -> None: ...


def line_reader(stdout: IO[bytes], stderr: IO[bytes]) -> LineReader:
    if os.name == "posix":
        return SelectorLineReader(stdout, stderr)
    return ThreadLineReader(stdout, stderr)  # pragma: no cover - exercised on Windows


class _StderrTail:
    def __init__(self) -> None:
        self.lines: deque[str] = deque(maxlen=STDERR_LINES)
        self._partial = b""

    def feed(self, data: bytes) -> None:
        *complete, partial = (self._partial + data).split(b"\n")
        self._partial = partial[:STDERR_LINE_BYTES]
        self.lines.extend(line[:STDERR_LINE_BYTES].decode("utf-8", "replace").rstrip("\r") for line in complete)

    def tail(self) -> list[str]:
        partial = [self._partial.decode("utf-8", "replace")] if self._partial else []
        return [*self.lines, *partial]


class _Lines:
    """Bytes in, complete lines out, in time linear in the bytes: each byte is searched for a
    newline once, and a line is joined once from its chunks."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._chunks: list[bytes] = []  # the line begun, no newline in any chunk
        self._size = 0
        self._ready: deque[bytes] = deque()
        self.overflow = False

    def feed(self, data: bytes) -> None:
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            self._chunks.append(data[start : end + 1])
            self._ready.append(b"".join(self._chunks))
            self._chunks, self._size = [], 0
            start = end + 1
        if start < len(data):
            self._chunks.append(data[start:])
            self._size += len(data) - start
        if self._size > self.limit:
            self._chunks, self._size = [], 0  # dropped: what follows the limit is never kept
            self.overflow = True

    def next_line(self) -> bytes | None:
        """The next complete line; raises :class:`LineTooLong` once the lines before it are read."""
        if self._ready:
            return self._ready.popleft()
        if self.overflow:
            raise LineTooLong(self.limit)
        return None

    def rest(self) -> bytes:
        rest, self._chunks, self._size = b"".join(self._chunks), [], 0
        return rest


class SelectorLineReader:
    def __init__(self, stdout: IO[bytes], stderr: IO[bytes], max_line: int = MAX_LINE_BYTES) -> None:
        self._out = stdout.fileno()
        self._err = stderr.fileno()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._out, selectors.EVENT_READ)
        self._selector.register(self._err, selectors.EVENT_READ)
        self._lines = _Lines(max_line)
        self._out_open = True
        self._stderr = _StderrTail()

    def read_line(self, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while True:
            line = self._lines.next_line()
            if line is not None:
                return line
            if not self._out_open:
                return self._lines.rest() or None
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._pump(remaining):
                raise ReplyTimeout

    def _pump(self, timeout: float) -> bool:
        """Read whatever is ready on either pipe; False if nothing became ready in time."""
        events = self._selector.select(timeout)
        for key, _ in events:
            data = os.read(key.fd, _CHUNK)
            if key.fd == self._out:
                if data:
                    self._lines.feed(data)
                else:
                    self._out_open = False
                    self._selector.unregister(key.fd)
            elif data:
                self._stderr.feed(data)
            else:
                self._selector.unregister(key.fd)
        return bool(events)

    def stderr_tail(self) -> list[str]:
        return self._stderr.tail()

    def drain(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self._selector.get_map() and (remaining := deadline - time.monotonic()) > 0:
            if not self._pump(remaining):
                break

    def close(self) -> None:
        self._selector.close()


class ThreadLineReader:  # pragma: no cover - the POSIX path is the tested one
    def __init__(self, stdout: IO[bytes], stderr: IO[bytes], max_line: int = MAX_LINE_BYTES) -> None:
        self._max_line = max_line
        self._lines: queue.Queue[bytes | LineTooLong | None] = queue.Queue()
        self._stderr = _StderrTail()
        self._threads = [
            threading.Thread(target=self._pump, args=(stdout, self._lines.put, True), daemon=True),
            threading.Thread(target=self._pump, args=(stderr, self._stderr_line, False), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _pump(self, stream: IO[bytes], put: object, bounded: bool) -> None:
        try:
            while line := stream.readline(self._max_line + 1):
                if bounded and len(line) > self._max_line and not line.endswith(b"\n"):
                    put(LineTooLong(self._max_line))  # type: ignore[operator]
                    return
                put(line)  # type: ignore[operator]
        except (OSError, ValueError):
            pass
        put(None)  # type: ignore[operator]

    def _stderr_line(self, line: bytes | LineTooLong | None) -> None:
        if isinstance(line, bytes):
            self._stderr.feed(line)

    def read_line(self, timeout: float) -> bytes | None:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise ReplyTimeout from None
        if isinstance(line, LineTooLong):
            raise line
        return line

    def stderr_tail(self) -> list[str]:
        return self._stderr.tail()

    def drain(self, timeout: float) -> None:
        self._threads[1].join(timeout)

    def close(self) -> None:
        pass
