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

STDERR_LINES = 20
_CHUNK = 1 << 16


class ReplyTimeout(Exception):
    pass


class LineReader(Protocol):
    def read_line(self, timeout: float) -> bytes | None:
        """The next stdout line (with its newline); None at the end of the stream; raises
        :class:`ReplyTimeout` when no full line arrives in time."""

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
        *complete, self._partial = (self._partial + data).split(b"\n")
        self.lines.extend(line.decode("utf-8", "replace").rstrip("\r") for line in complete)

    def tail(self) -> list[str]:
        partial = [self._partial.decode("utf-8", "replace")] if self._partial else []
        return [*self.lines, *partial]


class SelectorLineReader:
    def __init__(self, stdout: IO[bytes], stderr: IO[bytes]) -> None:
        self._out = stdout.fileno()
        self._err = stderr.fileno()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._out, selectors.EVENT_READ)
        self._selector.register(self._err, selectors.EVENT_READ)
        self._buffer = b""
        self._out_open = True
        self._stderr = _StderrTail()

    def read_line(self, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line, self._buffer = self._buffer[: end + 1], self._buffer[end + 1 :]
                return line
            if not self._out_open:
                line, self._buffer = self._buffer, b""
                return line or None
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
                    self._buffer += data
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
    def __init__(self, stdout: IO[bytes], stderr: IO[bytes]) -> None:
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr = _StderrTail()
        self._threads = [
            threading.Thread(target=self._pump, args=(stdout, self._lines.put), daemon=True),
            threading.Thread(target=self._pump, args=(stderr, self._stderr_line), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _pump(stream: IO[bytes], put: object) -> None:
        try:
            for line in stream:
                put(line)  # type: ignore[operator]
        except (OSError, ValueError):
            pass
        put(None)  # type: ignore[operator]

    def _stderr_line(self, line: bytes | None) -> None:
        if line is not None:
            self._stderr.feed(line)

    def read_line(self, timeout: float) -> bytes | None:
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            raise ReplyTimeout from None

    def stderr_tail(self) -> list[str]:
        return self._stderr.tail()

    def drain(self, timeout: float) -> None:
        self._threads[1].join(timeout)

    def close(self) -> None:
        pass
