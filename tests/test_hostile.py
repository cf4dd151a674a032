"""Hostile input and faulty engines: nothing hangs, nothing crashes, nothing vanishes.

``canasta serve`` answers every line (random bytes, random JSON, odd and deep JSON, impossible
positions) with one reply and exits cleanly on a closed pipe; the scenario loader turns any bytes
into problems; a faulty engine program is bounded by the run's budget and the circuit breaker; a
run that executed no scenario fails; CLI argument errors are one line and exit 2.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canasta_conformance.contract.engine_protocol import EngineFault
from canasta_conformance.contract.scenario import load_scenarios
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.transports.process_io import LineTooLong, SelectorLineReader
from canasta_conformance.transports.protocol import OPERATIONS
from canasta_conformance.transports.server import Server, serve
from canasta_conformance.transports.subprocess_engine import SubprocessEngine
from canasta_reference import create_engine
from example_scenario import EXAMPLE
from test_plugin import scenario

FAKE = Path(__file__).with_name("fake_process_engine.py")
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
BASE = {"variant": "classic", "hands": [["9H", "9S"], ["4D"], ["6C"], ["7S"]], "melds": [[], []], "pile": ["9D"], "stock": ["AC"]}


def fake(*args: str) -> str:
    return shlex.join([sys.executable, str(FAKE), *args])


def reply_to(line: str, server: Server | None = None) -> dict:
    answer = (server or Server(create_engine())).handle_line(line)
    assert answer is not None
    answer.encode("utf-8")  # always writable
    reply = json.loads(answer, parse_constant=lambda name: pytest.fail(f"{name} in a reply"))
    assert isinstance(reply, dict) and "seq" in reply
    return reply


# --- canasta serve: odd messages ---------------------------------------------------------------

@pytest.mark.parametrize(("line", "message"), [
    ("[" * 100_000 + "]" * 100_000, "the request is nested too deeply to be read"),
    ('{"seq": NaN, "op": "handshake"}', "the request is not JSON (NaN is not JSON)"),
    ('{"seq": Infinity, "op": "handshake"}', "the request is not JSON (Infinity is not JSON)"),
    ("[1, 2]", "the request is not a JSON object (it is a JSON array)"),
    ('"load"', "the request is not a JSON object (it is a JSON string)"),
    ('{"seq": 1e999, "op": "handshake"}', "the reply cannot be written as JSON: Out of range float values are not JSON compliant"),
    ('{"seq": 7}', "the request has no operation: 'op' is None, not a string"),
    ('{"seq": 7, "op": ["load"]}', "the request has no operation: 'op' is ['load'], not a string"),
])
def test_serve_answers_an_error_to_an_odd_message(line, message):
    assert reply_to(line)["error"]["message"] == message


def test_serve_echoes_a_lone_surrogate_seq_as_valid_json():
    reply = reply_to('{"seq": "\\ud800", "op": "observe"}')
    assert reply["seq"] == "\ud800" and "error" in reply


@pytest.mark.parametrize(("position", "message"), [
    ({**BASE, "hands": [["KH"] * 5, ["4D"], ["6C"], ["7S"]]}, "KH appears 5 times but the deck holds it 2 times"),
    ({**BASE, "stock": ["AC"] * 200}, "AC appears 200 times but the deck holds it 2 times"),
    ({**BASE, "turn": 99}, "turn: seat 99 does not exist with 4 players"),
    ({**BASE, "hands": [["9H"]]}, "hands: the variant has 4 players but the position has 1 hands"),
    ({**BASE, "variant": "nope"}, "unknown variant 'nope'"),
])
def test_serve_refuses_a_position_that_cannot_exist_as_validate_does(position, message):
    server = Server(create_engine())
    reply = reply_to(json.dumps({"seq": 1, "op": "load", "position": position}), server)
    assert reply["error"]["message"].startswith("malformed load request: the position cannot exist: ")
    assert message in reply["error"]["message"]
    assert "error" in reply_to('{"seq": 2, "op": "observe"}', server)  # nothing was loaded


def test_serve_refuses_a_deal_with_impossible_multiplicities():
    deck = ["KH"] * 5 + ["AS"] * 60
    reply = reply_to(json.dumps({"seq": 1, "op": "deal", "variant": "classic", "dealer": 0, "deck": deck}))
    assert reply["error"]["message"].startswith("malformed deal request: the deal cannot exist: ")
    assert "deck: KH appears 5 times but the deck holds it 2 times" in reply["error"]["message"]


def test_serve_refuses_a_deck_too_short_to_deal_and_plays_a_stacked_deck_with_its_own_cards():
    # Four hands of 11 and an upcard need 45 cards: 44 are refused, 45 (a stacked deck) are dealt and
    # the stock is empty; the whole deck of 108 leaves 63 in the stock. (docs/protocol.md, "Deck")
    from canasta_conformance.contract.cards import full_deck

    deck = [card.token for card in full_deck()]
    assert len(deck) == 108
    short = reply_to(json.dumps({"seq": 1, "op": "deal", "variant": "classic", "dealer": 0, "deck": deck[:44]}))
    assert "deck: the deal needs at least 45 cards, the deck has 44" in short["error"]["message"]
    for size, stock in ((45, 0), (108, 63)):
        server = Server(create_engine())
        reply = reply_to(json.dumps({"seq": 1, "op": "deal", "variant": "classic", "dealer": 0, "deck": deck[:size]}), server)
        assert reply == {"seq": 1, "ok": True}
        position = reply_to('{"seq": 2, "op": "observe"}', server)["position"]
        assert len(position["stock"]) == stock
        assert sum(len(hand) for hand in position["hands"]) + len(position["pile"]) + len(position["stock"]) + sum(
            len(threes) for threes in position["red_threes"]) == size


def test_the_reference_engine_refuses_an_impossible_position_given_directly():
    from canasta_conformance.contract.model import Position

    with pytest.raises(ValueError, match="the position cannot exist: turn: seat 99 does not exist"):
        create_engine().load(Position.from_json({**BASE, "turn": 99}))


def test_serve_answers_an_oversized_line_with_an_error_and_goes_on():
    import io

    stdin = io.StringIO("x" * 5000 + "\n" + '{"seq": 1, "op": "handshake"}\n')
    stdout = io.StringIO()
    assert serve(create_engine(), stdin, stdout, max_line=1000) == 0
    first, second = (json.loads(line) for line in stdout.getvalue().splitlines())
    assert first["error"]["message"] == "the request is longer than 1000 characters"
    assert second["seq"] == 1 and second["protocol"] == 1


def test_serve_exits_cleanly_when_its_stdout_is_closed():
    process = subprocess.Popen(
        [sys.executable, "-m", "canasta_conformance", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    process.stdout.close()  # the harness went away
    _, err = process.communicate(b'{"seq": 1, "op": "handshake"}\n' * 2000, timeout=120)
    assert process.returncode == 0, err
    assert b"Traceback" not in err and b"BrokenPipeError" not in err


def test_serve_reads_bytes_that_are_not_utf8():
    completed = subprocess.run(
        [sys.executable, "-m", "canasta_conformance", "serve"], input=b'\xff\xfe{"seq": 1}\n{"seq": 2, "op": "handshake"}\n',
        capture_output=True, timeout=120,
    )
    replies = [json.loads(line) for line in completed.stdout.splitlines()]
    assert completed.returncode == 0 and b"Traceback" not in completed.stderr
    assert replies[0]["error"]["message"].startswith("the request is not JSON")
    assert replies[1]["seq"] == 2


# --- fuzzing: the server and the loader --------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=40,
)
shaped_messages = st.fixed_dictionaries(
    {"seq": json_values, "op": st.sampled_from(OPERATIONS)},
    optional={
        "position": json_values | st.just(BASE) | st.builds(lambda t, s: {**BASE, "turn": t, "stock": s}, json_values, json_values),
        "action": json_values | st.fixed_dictionaries({"type": st.sampled_from(["draw", "take", "meld", "discard", "next_hand"])}, optional={"cards": json_values, "deck": json_values}),
        "variant": json_values | st.just("classic"), "dealer": json_values, "deck": json_values, "protocol": json_values,
    },
)


@FUZZ
@given(st.text(max_size=300))
def test_fuzz_serve_random_text_gets_one_json_reply(line):
    if line.strip() and "\n" not in line:
        reply_to(line)


@FUZZ
@given(st.one_of(json_values, shaped_messages))
def test_fuzz_serve_random_and_valid_shaped_messages_get_one_json_reply(message):
    server = Server(create_engine())
    server.handle_line(json.dumps({"seq": 0, "op": "load", "position": BASE}))
    if isinstance(message, dict) and message.get("op") == "stop":
        assert server.handle_line(json.dumps(message)) is None
        return
    reply_to(json.dumps(message), server)


@FUZZ
@given(st.binary(max_size=600))
def test_fuzz_the_loader_turns_any_bytes_into_problems(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "fuzzed.yaml"
    path.write_bytes(data)
    scenarios, problems = load_scenarios([path], load_spec())
    assert scenarios or problems
    assert all(len(str(p)) < 600 for p in problems)


@FUZZ
@given(st.integers(0, len(EXAMPLE) - 1), st.integers(0, 40), st.text(alphabet="&*!:-[]{}?|>'\"#%@`,\n \t\x07\ufeffKH9D0123456789", max_size=30))
def test_fuzz_the_loader_on_mutated_scenarios(tmp_path_factory, start, length, insert):
    path = tmp_path_factory.mktemp("fuzz") / "mutated.yaml"
    text = EXAMPLE.format(id="mutated")
    path.write_text(text[:start] + insert + text[start + length:], encoding="utf-8")
    scenarios, problems = load_scenarios([path], load_spec())
    assert len(scenarios) + len({p.file for p in problems}) == 1
    assert all(len(str(p)) < 600 for p in problems)


# --- faulty engine programs --------------------------------------------------------------------

def test_the_line_reader_reports_a_line_past_the_maximum_size():
    read_end, write_end = os.pipe()
    err_read, err_write = os.pipe()
    with os.fdopen(read_end, "rb") as out, os.fdopen(err_read, "rb") as err:
        reader = SelectorLineReader(out, err, max_line=1000)
        os.write(write_end, b"a" * 600 + b"\nb" + b"c" * 2000)
        assert reader.read_line(5) == b"a" * 600 + b"\n"
        with pytest.raises(LineTooLong, match="longer than 1000 bytes"):
            reader.read_line(5)
        reader.close()
    os.close(write_end)
    os.close(err_write)


BIG_REPLY = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "handshake":
        print(json.dumps({"seq": request["seq"], "protocol": 1, "engine": {"name": "big", "version": "1"}}), flush=True)
    else:
        sys.stdout.write('{"seq": %d, "position": "%s' % (request["seq"], "x" * (20 * 1024 * 1024)))
        sys.stdout.flush()
"""


def test_a_reply_past_the_maximum_line_size_is_reported_as_such_not_as_a_hang():
    with SubprocessEngine([sys.executable, "-c", BIG_REPLY], timeout=120) as engine:
        with pytest.raises(EngineFault, match=r"the engine's reply to observe is longer than 16777216 bytes without a newline"):
            engine.observe()


def test_the_handshake_is_attempted_once(pytester, tmp_path):
    starts = tmp_path / "starts"
    scenario(pytester, "start-one")
    scenario(pytester, "start-two")
    command = shlex.join([sys.executable, "-c", f"open({str(starts)!r}, 'a').write('x'); raise SystemExit(3)"])
    result = pytester.runpytest("--canasta-engine-cmd", command, "-p", "no:xdist", "-p", "no:randomly")
    result.assert_outcomes(failed=2)
    assert starts.read_text() == "x", "one attempt to start the engine for the whole run"


def test_the_circuit_breaker_reports_the_remaining_scenarios_at_once(pytester):
    for name in ("breaker-a", "breaker-b", "breaker-c", "breaker-d"):
        scenario(pytester, name)
    pids = pytester.path / "pids"
    result = pytester.runpytest(
        "--canasta-engine-cmd", fake("hang", "--pids", str(pids)), "--canasta-timeout", "1",
        "--canasta-max-engine-faults", "2", "-p", "no:xdist", "-p", "no:randomly",
    )
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines([
        "*the engine did not answer apply within 1 s (killed)*",
        "*not run: the engine program was lost (timeout, crash or garbage) in 2 scenarios in a row (breaker-a, breaker-b; "
        "last: the engine did not answer apply within 1 s (killed))*",
    ])
    # each engine process records itself when it is loaded (the engine's stderr may be cut short
    # when a loaded machine kills it before it prints): two processes, not four
    assert len(pids.read_text().split()) == 2, "the engine program was started twice, not four times"


def test_the_run_budget_stops_a_hanging_engine_and_reports_the_rest(pytester):
    for name in ("budget-a", "budget-b", "budget-c"):
        scenario(pytester, name)
    result = pytester.runpytest(
        "--canasta-engine-cmd", fake("hang"), "--canasta-timeout", "600", "--canasta-run-timeout", "3",
        "-p", "no:xdist", "-p", "no:randomly",
    )
    result.assert_outcomes(failed=3)
    # the budget runs out in the first apply (or, on a loaded machine, already in the handshake):
    # either way no scenario waits for the 600 s reply timeout, and the rest are not run
    output = result.stdout.str()
    assert "time budget ran out while the engine answered" in output
    assert output.count("not run: the run's time budget (--canasta-run-timeout) is spent") >= 2
    assert "within 600 s" not in output


# --- a run that tests nothing ------------------------------------------------------------------

def test_a_run_that_executed_no_scenario_fails(pytester):
    scenario(pytester, "nothing-one")
    result = pytester.runpytest("--canasta-engine", "fake_engines:SupportsNothing", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["canasta: no scenario was executed: the engine supports none of the 1 collected*"])
    allowed = pytester.runpytest("--canasta-engine", "fake_engines:SupportsNothing", "--canasta-allow-no-run")
    assert allowed.ret == pytest.ExitCode.OK


# --- the command line --------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["play", "--variant", "nope"], "canasta play: --variant: unknown variant 'nope' (known: "),
    (["play", "--max-hands", "-1"], "canasta play: argument --max-hands: invalid positive integer value: '-1'"),
    (["play", "--json", "/no/such/folder/x.json"], "canasta play: --json: the folder '/no/such/folder' does not exist"),
    (["play", "--replay", "/no/such/record.json"], "/no/such/record.json: cannot read the game record: No such file or directory"),
    (["validate", "--bogus"], "canasta: unrecognized arguments: --bogus (see 'canasta --help')"),
    (["spec", "show"], "canasta spec show: the following arguments are required: rule"),
])
def test_an_argument_error_is_one_line_and_exit_2(args, message):
    completed = subprocess.run([sys.executable, "-m", "canasta_conformance", *args], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 2
    assert len(completed.stderr.splitlines()) == 1 and completed.stderr.startswith(message), completed.stderr


@pytest.mark.parametrize(("change", "message"), [
    (lambda record: [1, 2], "not a game record: a canasta-game-record is a JSON object, not a list"),
    (lambda record: {**record, "hands": [{"deck": 5}]}, "not a game record: "),
    (lambda record: {**record, "hands": [{**record["hands"][0], "deck": ["KH"] * 5 + record["hands"][0]["deck"][5:]}]},
     "the engine cannot replay the record: the deal cannot exist: deck: KH appears"),
])
def test_a_bad_record_is_one_line_not_a_traceback(tmp_path, change, message):
    good = tmp_path / "game.json"
    subprocess.run([sys.executable, "-m", "canasta_conformance", "play", "--max-hands", "1", "--json", str(good)], check=True, capture_output=True, timeout=300)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(change(json.loads(good.read_text()))))
    completed = subprocess.run([sys.executable, "-m", "canasta_conformance", "play", "--replay", str(bad)], capture_output=True, text=True, timeout=300)
    assert completed.returncode in (1, 2)
    assert len(completed.stderr.splitlines()) == 1 and message in completed.stderr, completed.stderr


def test_replay_with_an_engine_that_does_not_import_is_one_line(tmp_path):
    good = tmp_path / "game.json"
    subprocess.run([sys.executable, "-m", "canasta_conformance", "play", "--max-hands", "1", "--json", str(good)], check=True, capture_output=True, timeout=300)
    completed = subprocess.run(
        [sys.executable, "-m", "canasta_conformance", "play", "--replay", str(good), "--engine", "nope:x"], capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 2 and completed.stderr == "canasta play: --engine: cannot import engine module 'nope': No module named 'nope'\n"


def test_play_into_a_closed_pipe_is_quiet():
    # The reader goes away before the writer has written anything (it closes its end at once, as
    # `| head -c 0` would): the record is written after a whole game is played, so every write meets
    # the closed pipe. (Reading a first line before closing made the test depend on the load: a record
    # smaller than the pipe's buffer could be written whole before the reader closed.)
    process = subprocess.Popen([sys.executable, "-m", "canasta_conformance", "play", "--json", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()
    _, err = process.communicate(timeout=300)
    assert process.returncode == 141 and err == b""
