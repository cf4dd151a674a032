"""The JSON-lines engine protocol: the Python engine protocol as messages, one JSON object a line.

The harness sends requests ``{"seq": <opaque>, "op": <operation>, ...}``; the engine answers each
with one reply echoing ``seq``: the operation's result, ``{"unsupported": true, "message": ...}``
or ``{"error": {"message": ...}}``. Every message is described by a definition of
``spec/schema/protocol.schema.json``; docs/protocol.md explains the exchange. Unknown fields are
ignored by both sides, so either side may add fields without breaking the other.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..contract.cards import card
from ..contract.engine_protocol import Capabilities, DealSetup
from ..contract.errors import CanastaError
from ..contract.schemas import definition_errors

PROTOCOL_VERSION = 1

#: every operation, in the order of a session
OPERATIONS: tuple[str, ...] = ("handshake", "load", "deal", "apply", "observe", "score", "legal_actions", "stop")

#: the definition of protocol.schema.json that describes the successful reply to each operation
REPLY_DEFINITIONS: Mapping[str, str] = {
    "handshake": "handshake_reply", "load": "ok_reply", "deal": "ok_reply", "apply": "outcome_reply",
    "observe": "position_reply", "score": "score_reply", "legal_actions": "legal_actions_reply",
}


class ProtocolError(CanastaError, ValueError):
    """A message that breaks the protocol: not JSON, not an object, or not what the schema says."""


def encode(message: Mapping[str, Any]) -> str:
    """One message as one line (no newline inside: JSON escapes them), always valid UTF-8 JSON:
    NaN and infinities are refused (ValueError), a lone surrogate is written as an escape."""
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = json.dumps(message, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode(line: str) -> dict[str, Any]:
    """A message from one line; what is not a JSON object is a :class:`ProtocolError` (the error
    reads after "the request is" / "a line that is")."""
    try:
        message = json.loads(line, parse_constant=_no_constant)
    except RecursionError:
        raise ProtocolError("nested too deeply to be read") from None
    except ValueError as error:
        raise ProtocolError(f"not JSON ({error})") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"not a JSON object (it is a JSON {_json_type(message)})")
    return message


def _json_type(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}.get(type(value), "null")


def reply_kind(reply: Mapping[str, Any]) -> str:
    """``error``, ``unsupported`` or ``result``: an error wins over everything else in a reply."""
    if "error" in reply:
        return "error"
    if reply.get("unsupported") is True:
        return "unsupported"
    return "result"


def reply_definition(op: str, reply: Mapping[str, Any]) -> str:
    kind = reply_kind(reply)
    if kind == "result":
        return REPLY_DEFINITIONS[op]
    return f"{kind}_reply"


def violations(definition: str, message: Any) -> list[str]:
    """The schema violations of a message against a definition of protocol.schema.json."""
    out = []
    for path, text in definition_errors("protocol", definition, message):
        where = ".".join(str(part) for part in path)
        out.append(f"{where}: {text}" if where else text)
    return out


def request_violations(request: Mapping[str, Any]) -> list[str]:
    return violations(f"{request.get('op')}_request", request)


def reply_violations(op: str, reply: Mapping[str, Any]) -> list[str]:
    return violations(reply_definition(op, reply), reply)


def error_message(reply: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """(message, traceback lines) of an error reply, whatever shape the engine gave it."""
    error = reply.get("error")
    if isinstance(error, Mapping):
        message = str(error.get("message", "")) or "(no message)"
        trace = error.get("traceback")
        return message, tuple(str(trace).rstrip().splitlines()) if trace else ()
    return str(error), ()


# --------------------------------------------------------------------------------------------
# Capabilities and deals as JSON (positions, actions, outcomes and sheets have their own to_json)


def _strings(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise ProtocolError(f"engine.{key}: expected a list of strings, got {value!r}")
    return tuple(value)


def capabilities_from_json(data: Any) -> Capabilities:
    if not isinstance(data, Mapping):
        raise ProtocolError(f"engine: expected an object, got {data!r}")
    for key in ("name", "version"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ProtocolError(f"engine.{key}: expected a non-empty string, got {data.get(key)!r}")
    spec_version = data.get("spec_version")
    return Capabilities(
        name=data["name"], version=data["version"], variants=_strings(data.get("variants"), "variants"),
        options=_strings(data.get("options"), "options"), features=_strings(data.get("features"), "features"),
        spec_version=None if spec_version is None else str(spec_version),
    )


def deal_to_json(setup: DealSetup) -> dict[str, Any]:
    return {
        "variant": setup.variant, "options": dict(setup.options), "dealer": setup.dealer,
        "deck": [c.token for c in setup.deck], "scores": list(setup.scores),
        **({"first_player": setup.first_player} if setup.first_player is not None else {}),
    }


def deal_from_json(data: Mapping[str, Any]) -> DealSetup:
    try:
        return DealSetup(
            variant=str(data["variant"]), options=dict(data.get("options") or {}), dealer=int(data["dealer"]),
            deck=tuple(card(token) for token in data["deck"]), scores=tuple(int(s) for s in data.get("scores") or ()),
            first_player=None if data.get("first_player") is None else int(data["first_player"]),
        )
    except KeyError as missing:
        raise ProtocolError(f"a deal request needs {missing.args[0]!r}") from None
    except (TypeError, ValueError) as error:
        raise ProtocolError(f"a malformed deal request: {error}") from None
