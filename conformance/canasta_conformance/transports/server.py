"""The engine side of the JSON-lines protocol: any Python engine behind stdin/stdout.

``canasta serve`` runs :func:`serve` with the reference engine (or ``--engine MODULE:FACTORY``),
so the out-of-process transport can be tested against the in-process one, and so a Python engine
can be driven from a harness in another language. :class:`Server` answers one message at a time
and never raises: whatever the engine does, the reply is a protocol message.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from typing import IO, Any

from ..contract.docpath import DocPath
from ..contract.engine_protocol import Engine, OperationUnsupported
from ..contract.model import FormatError, Position, action_from_json
from ..contract.scenario import impossible, setup_problems
from ..contract.spec import load_spec
from ..contract.yamlio import excerpt
from .protocol import PROTOCOL_VERSION, ProtocolError, deal_from_json, decode, encode

#: the longest request line answered (a position is a few kilobytes)
MAX_REQUEST_CHARS = 8_000_000


class Server:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.stopped = False
        self._handlers: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
            "handshake": self._handshake, "load": self._load, "deal": self._deal, "apply": self._apply,
            "observe": self._observe, "score": self._score, "legal_actions": self._legal_actions,
        }

    def handle_line(self, line: str) -> str | None:
        """The reply line to a request line (None for ``stop``, which has no reply)."""
        try:
            request = decode(line)
        except ProtocolError as error:
            return encode({"seq": None, "error": {"message": f"the request is {error}"}})
        reply = self.handle(request)
        if reply is None:
            return None
        try:
            return encode(reply)
        except (ValueError, TypeError, RecursionError) as error:  # e.g. a seq of 1e999 (infinity) cannot be echoed
            return encode({"seq": None, "error": {"message": f"the reply cannot be written as JSON: {error}"}})

    def handle(self, request: Mapping[str, Any]) -> dict[str, Any] | None:
        seq = request.get("seq")
        op = request.get("op")
        if op == "stop":
            self.stopped = True
            return None
        if not isinstance(op, str):
            return {"seq": seq, "error": {"message": f"the request has no operation: 'op' is {excerpt(op)}, not a string"}}
        handler = self._handlers.get(op)
        if handler is None:
            return {"seq": seq, "unsupported": True, "message": f"unknown operation {excerpt(op)}"}
        try:
            return {"seq": seq, **handler(request)}
        except OperationUnsupported as error:
            return {"seq": seq, "unsupported": True, "message": str(error) or f"{op} is not supported"}
        except ProtocolError as error:
            return {"seq": seq, "error": {"message": f"malformed {op} request: {error}"}}
        except Exception as error:  # noqa: BLE001 - the engine's exception becomes an error reply
            trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            return {"seq": seq, "error": {"message": f"{type(error).__name__}: {error}", "traceback": trace}}

    def _handshake(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return {"protocol": PROTOCOL_VERSION, "engine": self.engine.capabilities().to_json()}

    def _load(self, request: Mapping[str, Any]) -> dict[str, Any]:
        position = _parse(Position.from_json, request, "position")
        _check("the position", setup_problems(position, load_spec()))
        self.engine.load(position)
        return {"ok": True}

    def _deal(self, request: Mapping[str, Any]) -> dict[str, Any]:
        deal = getattr(self.engine, "deal", None)
        if deal is None:
            raise OperationUnsupported("the engine cannot deal")
        setup = deal_from_json(request)
        _check("the deal", setup_problems(setup, load_spec()))
        deal(setup)
        return {"ok": True}

    def _apply(self, request: Mapping[str, Any]) -> dict[str, Any]:
        outcome = self.engine.apply(_parse(action_from_json, request, "action"))
        return {"outcome": outcome.to_json()}

    def _observe(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return {"position": self.engine.observe().to_json()}

    def _score(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return {"score": self.engine.score().to_json()}

    def _legal_actions(self, request: Mapping[str, Any]) -> dict[str, Any]:
        legal_actions = getattr(self.engine, "legal_actions", None)
        if legal_actions is None:
            raise OperationUnsupported("the engine does not list legal actions")
        return {"actions": [action.to_json() for action in legal_actions()]}


def _parse(parser: Callable[[Any, DocPath], Any], request: Mapping[str, Any], key: str) -> Any:
    """A field of the request in its model type; a missing or malformed field is a ProtocolError."""
    if key not in request:
        raise ProtocolError(f"missing {key!r}")
    try:
        return parser(request[key], (key,))
    except FormatError as error:
        raise ProtocolError(str(error)) from None


def _check(what: str, problems: list[str]) -> None:
    """Refuse a position or deal that cannot exist, as ``canasta validate`` refuses it in a scenario."""
    if problems:
        raise ProtocolError(impossible(what, problems))


def serve(engine: Engine, stdin: IO[str], stdout: IO[str], max_line: int = MAX_REQUEST_CHARS) -> int:
    """Answer requests until ``stop`` or the end of input; one reply line per request line. A line
    longer than ``max_line`` characters is answered with an error without being kept in memory; a
    closed stdout ends the loop quietly."""
    server = Server(engine)
    while True:
        line = stdin.readline(max_line + 1)
        if not line:
            break
        if len(line) > max_line and not line.endswith("\n"):
            while (rest := stdin.readline(max_line)) and not rest.endswith("\n"):
                pass  # skip the rest of the oversized line
            reply: str | None = encode({"seq": None, "error": {"message": f"the request is longer than {max_line} characters"}})
        elif not line.strip():
            continue
        else:
            reply = server.handle_line(line)
        if reply is not None:
            try:
                stdout.write(reply + "\n")
                stdout.flush()
            except BrokenPipeError:
                return 0  # the harness went away: nobody is left to answer
        if server.stopped:
            break
    return 0
