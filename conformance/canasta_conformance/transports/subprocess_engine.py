"""An engine in another process, driven over the JSON-lines protocol.

:class:`SubprocessEngine` implements the Python engine protocol by sending each call as a request
line to the program's stdin and reading the reply line from its stdout, within a timeout. Whatever
the program does wrong (exits, hangs, prints something that is not a reply, answers out of turn or
reports an error) becomes an :class:`~canasta_conformance.contract.engine_protocol.EngineFault` that carries the
last messages both ways and the tail of the program's stderr; the harness reports it on the
scenario at hand and starts a fresh process for the next one.
"""

from __future__ import annotations

import itertools
import os
import shlex
import subprocess
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..contract.defaults import DEFAULT_TIMEOUT
from ..contract.engine_protocol import Capabilities, DealSetup, EngineFault, EngineLoadError, OperationUnsupported
from ..contract.model import Action, FormatError, Outcome, Position, ScoreSheet, action_from_json
from .process_io import LineTooLong, ReplyTimeout, line_reader
from .protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    capabilities_from_json,
    deal_to_json,
    decode,
    encode,
    error_message,
    reply_kind,
    reply_violations,
    request_violations,
)

#: the handshake may take at least this long, whatever the per-request timeout (programs start slowly)
STARTUP_TIMEOUT = 10.0
TRANSCRIPT_LINES = 10  # per direction
LINE_CHARS = 400  # longer transcript lines are shortened
EXIT_WAIT = 5.0  # how long a process that closed its stdout gets to exit before it is killed
T = TypeVar("T")


def split_command(command: str | Sequence[str]) -> list[str]:
    if not isinstance(command, str):
        return list(command)
    return shlex.split(command, posix=os.name != "nt")


class Transcript:
    """The last lines sent and received (in order), for the report of a fault."""

    def __init__(self, per_direction: int = TRANSCRIPT_LINES) -> None:
        self._counter = itertools.count()
        self._sent: deque[tuple[int, str]] = deque(maxlen=per_direction)
        self._received: deque[tuple[int, str]] = deque(maxlen=per_direction)

    def sent(self, line: str) -> None:
        self._sent.append((next(self._counter), line))

    def received(self, line: str) -> None:
        self._received.append((next(self._counter), line))

    def clear(self) -> None:
        self._sent.clear()
        self._received.clear()

    def lines(self) -> list[str]:
        marked = [(n, "->", line) for n, line in self._sent] + [(n, "<-", line) for n, line in self._received]
        return [f"{arrow} {_shorten(line)}" for _, arrow, line in sorted(marked)]


def _shorten(line: str) -> str:
    line = line.rstrip("\n")
    if len(line) <= LINE_CHARS:
        return line
    return f"{line[:LINE_CHARS]}... ({len(line)} characters)"


class SubprocessEngine:
    """An engine program speaking the JSON-lines protocol; the handshake happens on construction.

    ``command`` is a shell-like string (split with :func:`shlex.split`, no shell involved) or an
    argument list. Raises :class:`EngineLoadError` if the program cannot be started at all and
    :class:`EngineFault` if it starts but fails the handshake. ``timeout`` bounds each reply; the
    handshake may take ``max(timeout, STARTUP_TIMEOUT)``.
    """

    def __init__(
        self, command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check_protocol: bool = False,
        cwd: str | None = None, env: dict[str, str] | None = None, deadline: float | None = None,
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.check_protocol = check_protocol
        self.transcript = Transcript()
        #: time.monotonic() after which no reply is waited for (the run's time budget), or None
        self.deadline = deadline
        #: True once the process was killed or died: a timeout, a crash, garbage on stdout
        self.lost = False
        self._observed: tuple[Any, Position] | None = None  # the last position seen, raw and parsed
        self._seq = itertools.count(1)
        self._op = "handshake"
        args = split_command(command)
        if not args:
            raise EngineLoadError("the engine command is empty")
        try:
            self._process = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, cwd=cwd, env=env,
            )
        except OSError as error:
            raise EngineLoadError(f"cannot start the engine command {command!r}: {error}") from error
        assert self._process.stdout is not None and self._process.stderr is not None
        self._reader = line_reader(self._process.stdout, self._process.stderr)
        try:
            self._capabilities = self._handshake()
        except BaseException:
            self._kill()
            self._finish()
            raise

    # --- the engine protocol -------------------------------------------------------------------
    def capabilities(self) -> Capabilities:
        return self._capabilities

    def load(self, position: Position) -> None:
        self.transcript.clear()  # a new scenario: its transcript starts here
        self._call("load", position=position.to_json())

    def deal(self, setup: DealSetup) -> None:
        self.transcript.clear()
        self._call("deal", **deal_to_json(setup))

    def apply(self, action: Action) -> Outcome:
        reply = self._call("apply", action=action.to_json())
        return self._parse(lambda: Outcome.from_json(reply["outcome"]))

    def observe(self) -> Position:
        reply = self._call("observe")
        raw = reply.get("position")
        if self._observed is not None and self._observed[0] == raw:
            return self._observed[1]  # unchanged (a rejected action): no need to parse it again
        position = self._parse(lambda: Position.from_json(reply["position"]))
        self._observed = (raw, position)
        return position

    def score(self) -> ScoreSheet:
        reply = self._call("score")
        return self._parse(lambda: ScoreSheet.from_json(reply["score"]))

    def legal_actions(self) -> list[Action]:
        reply = self._call("legal_actions")

        def actions() -> list[Action]:
            listed = reply["actions"]
            if not isinstance(listed, list):
                raise FormatError("expected a list of actions", ("actions",))
            return [action_from_json(a, ("actions", i)) for i, a in enumerate(listed)]

        return self._parse(actions)

    # --- the process ---------------------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def running(self) -> bool:
        return self._process.poll() is None

    def close(self) -> None:
        """Ask the program to stop, then make sure it has."""
        process = self._process
        if process.poll() is None:
            try:
                self._write(encode({"seq": next(self._seq), "op": "stop"}))
            except (OSError, ValueError):
                pass
            try:
                process.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
            try:
                process.wait(timeout=min(self.timeout, 2.0))
            except subprocess.TimeoutExpired:
                self._kill()
        self._finish()

    def __enter__(self) -> SubprocessEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _kill(self) -> None:
        process = self._process
        if process.poll() is None:
            process.kill()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - an unkillable process
            pass

    def _finish(self) -> None:
        self._reader.close()
        for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def _write(self, line: str) -> None:
        data = (line + "\n").encode("utf-8")
        stdin = self._process.stdin
        assert stdin is not None
        while data:
            written = stdin.write(data) or 0
            data = data[written:]

    # --- messages ------------------------------------------------------------------------------
    def _handshake(self) -> Capabilities:
        reply = self._call("handshake", protocol=PROTOCOL_VERSION)
        version = reply.get("protocol")
        if version != PROTOCOL_VERSION:
            raise self._fault(
                f"the engine speaks protocol version {version!r}; this harness speaks version {PROTOCOL_VERSION}",
                kill=True,
            )
        try:
            return capabilities_from_json(reply.get("engine"))
        except ProtocolError as error:
            raise self._fault(f"the handshake reply is malformed: {error}", kill=True) from None

    def _call(self, op: str, **fields: Any) -> dict[str, Any]:
        timeout = max(self.timeout, STARTUP_TIMEOUT) if op == "handshake" else self.timeout
        self._op = op
        seq = next(self._seq)
        request = {"seq": seq, "op": op, **fields}
        if self.check_protocol:
            problems = request_violations(request)
            if problems:
                raise self._fault(f"protocol violation by the harness in the {op} request: {'; '.join(problems)}")
        line = encode(request)
        self.transcript.sent(line)
        if self._process.poll() is not None:
            raise self._fault(f"the engine process is not running (it {self._exit_text()}) when asked to {op}", kill=True)
        try:
            self._write(line)
        except (OSError, ValueError):
            raise self._crashed() from None
        budget = self.deadline is not None and self.deadline - time.monotonic() < timeout
        if budget:
            timeout = max(0.0, self.deadline - time.monotonic())  # type: ignore[operator]
        try:
            raw = self._reader.read_line(timeout)
        except ReplyTimeout:
            if budget:
                raise self._fault(f"the run's time budget ran out while the engine answered {op} (killed)", kill=True) from None
            raise self._fault(f"the engine did not answer {op} within {timeout:g} s (killed)", kill=True) from None
        except LineTooLong as error:
            raise self._fault(f"the engine's reply to {op} is {error} without a newline: the maximum line size (killed)", kill=True) from None
        if raw is None:
            raise self._crashed()
        answer = raw.decode("utf-8", "replace")
        self.transcript.received(answer)
        try:
            reply = decode(answer)
        except ProtocolError as error:
            raise self._fault(f"the engine answered {op} with a line that is {error}", kill=True) from None
        if self.check_protocol:
            problems = reply_violations(op, reply)
            if problems:
                raise self._fault(f"protocol violation in the reply to {op}: {'; '.join(problems)}", kill=True)
        if reply.get("seq") != seq:
            raise self._fault(f"the reply to {op} has seq {reply.get('seq')!r}, the request had {seq!r}", kill=True)
        kind = reply_kind(reply)
        if kind == "error":
            message, trace = error_message(reply)
            raise self._fault(f"the engine reported an error in {op}: {message}", trace)
        if kind == "unsupported":
            raise OperationUnsupported(f"{op}: {reply.get('message') or 'the engine answered unsupported'}")
        return reply

    def _parse(self, build: Callable[[], T]) -> T:
        try:
            return build()
        except (KeyError, TypeError, ValueError) as error:
            text = f"missing {error.args[0]!r}" if isinstance(error, KeyError) else str(error)
            raise self._fault(f"the reply to {self._op} is malformed: {text}", kill=True) from None

    def _crashed(self) -> EngineFault:
        try:
            self._process.wait(timeout=EXIT_WAIT)  # it closed stdout: it is exiting, learn its exit code
        except subprocess.TimeoutExpired:
            pass
        return self._fault(f"the engine process {self._exit_text()} while answering {self._op}", kill=True)

    def _exit_text(self) -> str:
        code = self._process.poll()
        if code is None:
            return "closed its stdout"
        if code < 0:
            return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def _fault(self, message: str, own: Sequence[str] = (), kill: bool = False) -> EngineFault:
        """A fault with its evidence; ``kill`` stops a process that can no longer be trusted."""
        if kill:
            self.lost = True
            self._kill()
            self._reader.drain(timeout=1)  # collect the rest of stderr
        details = [*own]
        transcript = self.transcript.lines()
        if transcript:
            details += ["last messages (-> to the engine, <- from the engine):", *(f"  {line}" for line in transcript)]
        stderr = self._reader.stderr_tail()
        if stderr:
            details += [f"engine stderr (last {len(stderr)} lines):", *(f"  {line}" for line in stderr)]
        details.append(f"engine command: {self.command if isinstance(self.command, str) else shlex.join(self.command)}")
        return EngineFault(message, details)

