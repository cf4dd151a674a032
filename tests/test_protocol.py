"""The JSON-lines protocol: the schemas, the serving side, and the exchange in docs/protocol.md."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

from canasta_conformance.contract.engine_protocol import OperationUnsupported
from canasta_conformance.contract.model import Outcome
from canasta_conformance.contract.schemas import schema
from canasta_conformance.transports.protocol import OPERATIONS, PROTOCOL_VERSION, REPLY_DEFINITIONS, reply_violations, request_violations
from canasta_conformance.transports.server import Server
from canasta_reference import create_engine
from fake_engines import AcceptEverything

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def doc_exchange() -> list[tuple[str, dict]]:
    text = DOC.read_text(encoding="utf-8").split("## A complete exchange", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    return [(line[:2], json.loads(line[3:])) for line in text.splitlines()]


def test_every_operation_has_a_request_and_a_reply_definition():
    definitions = schema("protocol")["definitions"]
    for op in OPERATIONS:
        assert f"{op}_request" in definitions
        if op != "stop":
            assert REPLY_DEFINITIONS[op] in definitions and f"{op}_answer" in definitions


def test_the_documented_exchange_fits_the_schemas():
    exchange = doc_exchange()
    assert [m["op"] for arrow, m in exchange if arrow == "->"] == [
        "handshake", "load", "apply", "apply", "apply", "legal_actions", "apply", "observe", "score", "stop",
    ]
    ops = {}
    for arrow, message in exchange:
        if arrow == "->":
            assert request_violations(message) == [], message
            ops[message["seq"]] = message["op"]
        else:
            assert reply_violations(ops[message["seq"]], message) == [], message


def test_the_documented_exchange_is_what_canasta_serve_answers():
    server = Server(create_engine())
    exchange = doc_exchange()
    for (arrow, request), (next_arrow, documented) in pairwise(exchange):
        if arrow != "->" or next_arrow != "<-":
            continue
        reply = server.handle(request)
        assert reply is not None
        if request["op"] == "handshake":
            assert reply["engine"]["name"] == documented["engine"]["name"]
            continue
        assert _without_messages(reply) == _without_messages(documented), request


def _without_messages(value):
    if isinstance(value, dict):
        return {k: _without_messages(v) for k, v in value.items() if k != "message"}
    if isinstance(value, list):
        return [_without_messages(v) for v in value]
    return value


def test_a_request_that_is_not_json_gets_an_error_reply():
    reply = json.loads(Server(create_engine()).handle_line("hello\n"))
    assert reply["seq"] is None and reply["error"]["message"].startswith("the request is not JSON")


def test_an_unknown_operation_is_unsupported_and_unknown_fields_are_ignored():
    server = Server(create_engine())
    assert server.handle({"seq": "a", "op": "perft", "depth": 2}) == {"seq": "a", "unsupported": True, "message": "unknown operation 'perft'"}
    reply = server.handle({"seq": [1, 2], "op": "handshake", "protocol": 1, "client": "someone"})
    assert reply["seq"] == [1, 2] and reply["protocol"] == PROTOCOL_VERSION


def test_a_malformed_request_is_an_error_that_names_the_field():
    server = Server(create_engine())
    assert server.handle({"seq": 1, "op": "load"})["error"]["message"] == "malformed load request: missing 'position'"
    reply = server.handle({"seq": 2, "op": "apply", "action": {"type": "discard", "card": "XX"}})
    assert reply["error"]["message"].startswith("malformed apply request: action.card[0]:")


def test_an_engine_exception_becomes_an_error_reply_with_its_traceback():
    reply = Server(create_engine()).handle({"seq": 1, "op": "score"})
    assert reply["error"]["message"].startswith("RuntimeError: ")
    assert "Traceback (most recent call last)" in reply["error"]["traceback"]
    assert reply_violations("score", reply) == []


def test_optional_operations_an_engine_lacks_are_unsupported():
    class NoExtras(AcceptEverything):
        legal_actions = None  # type: ignore[assignment]
        deal = None  # type: ignore[assignment]

        def score(self):
            raise OperationUnsupported("this engine keeps no score")

    server = Server(NoExtras())
    for op, message in (("score", "this engine keeps no score"), ("legal_actions", "the engine does not list legal actions")):
        reply = server.handle({"seq": 1, "op": op})
        assert reply == {"seq": 1, "unsupported": True, "message": message}
        assert reply_violations(op, reply) == []


def test_stop_has_no_reply_and_ends_the_session():
    server = Server(create_engine())
    assert server.handle_line('{"seq": 9, "op": "stop"}') is None
    assert server.stopped


@pytest.mark.parametrize("reply, problem", [
    ({"seq": 1, "outcome": {"status": "fine"}}, "outcome.status: 'fine' is not one of ['accepted', 'rejected', 'malformed']"),
    ({"seq": 1, "error": "boom"}, "error: 'boom' is not of type 'object'"),
    ({"seq": 1}, "'outcome' is a required property"),
])
def test_the_schema_catches_malformed_replies(reply, problem):
    assert problem in reply_violations("apply", reply)


@pytest.mark.parametrize("outcome", [
    {"status": "rejected"},
    {"status": "rejected", "message": "not now"},
    {"status": "rejected", "rule": "pile.blocked.wild-top", "message": "wild on top"},
])
def test_a_rejection_may_name_a_rule_or_none(outcome):
    assert reply_violations("apply", {"seq": 1, "outcome": outcome}) == []
    assert Outcome.from_json(outcome).status == "rejected"
