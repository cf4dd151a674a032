"""Engine programs over the JSON-lines protocol: every fault is an error of one scenario, with the
evidence, and a fresh process runs the next scenario (fake engines in fake_process_engine.py)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from canasta_conformance.contract.engine_protocol import EngineFault, EngineLoadError, OperationUnsupported
from canasta_conformance.contract.model import Draw
from canasta_conformance.transports.subprocess_engine import SubprocessEngine, Transcript
from test_plugin import scenario

FAKE = Path(__file__).with_name("fake_process_engine.py")


def fake(*args: str) -> str:
    return shlex.join([sys.executable, str(FAKE), *args])


def two_scenarios(pytester: pytest.Pytester) -> None:
    scenario(pytester, "fault-a-first")
    scenario(pytester, "fault-b-second")


FAULTS = {
    "crash": "step 1 (take [9H 9S]): the engine process exited with code 3 while answering apply",
    "raise": "step 1 (take [9H 9S]): the engine process exited with code 1 while answering apply",
    "hang": "step 1 (take [9H 9S]): the engine did not answer apply within 2 s (killed)",
    "garbage": "step 1 (take [9H 9S]): the engine answered apply with a line that is not JSON (Expecting value: line 1 column 1 (char 0))",
    "malformed": "step 1 (take [9H 9S]): the reply to apply is malformed: outcome.status: 'maybe' is not one of accepted, rejected, malformed",
    "wrong-seq": "step 1 (take [9H 9S]): the reply to apply has seq '4-not', the request had 4",
    "error": "step 1 (take [9H 9S]): the engine reported an error in apply: engine exploded",
}


@pytest.mark.parametrize("mode", FAULTS)
def test_a_faulty_engine_program_errs_that_scenario_only_and_is_restarted(pytester, tmp_path, mode):
    two_scenarios(pytester)
    pids = tmp_path / "pids"
    command = fake(mode, "--once", str(tmp_path / "flag"), "--pids", str(pids))
    # only the hanging engine needs a short timeout; the others get a generous one, so that a loaded
    # machine (a slow traceback, a slow start) does not turn their fault into a timeout
    result = pytester.runpytest("--canasta-engine-cmd", command, "--canasta-timeout", "2" if mode == "hang" else "60")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines([
        "*engine error: fault-a-first: A wild card on top*",
        FAULTS[mode],
        "    last messages (-> to the engine, <- from the engine):",
        '      -> {"seq":2,"op":"load","position":*',
        '      <- {"seq":2,"ok":true}',
        '      -> {"seq":4,"op":"apply","action":{"type":"take","cards":["9H","9S"]}}',
        "    engine stderr (last * lines):",
        f"      fake engine: {mode} on apply",
    ])
    assert len(set(pids.read_text().split())) == 2, "a fresh engine process runs the next scenario"


def test_an_error_reply_carries_the_engines_traceback(pytester, tmp_path):
    two_scenarios(pytester)
    result = pytester.runpytest("--canasta-engine-cmd", fake("error", "--once", str(tmp_path / "flag")))
    result.stdout.fnmatch_lines(["    Traceback (most recent call last):", "    ValueError: engine exploded", "    last messages*"])


def test_an_uncaught_exception_shows_in_the_stderr_tail(pytester, tmp_path):
    two_scenarios(pytester)
    result = pytester.runpytest("--canasta-engine-cmd", fake("raise", "--once", str(tmp_path / "flag")))
    result.stdout.fnmatch_lines(["    engine stderr (last * lines):", "*RuntimeError: a bug in the fake engine"])


def test_a_reply_that_only_the_schema_rejects_is_an_error_with_check_protocol(pytester, tmp_path):
    two_scenarios(pytester)
    unchecked = pytester.runpytest("--canasta-engine-cmd", fake("wrong-type", "--once", str(tmp_path / "flag1")))
    # the engine declares cites_rules: a citation that is not the scenario's rule is rule-differs, not a failure
    unchecked.assert_outcomes(passed=2)
    unchecked.stdout.fnmatch_lines([
        "scenarios * 1 * 0 * 0 * 0 * 1 *", "rule citations: 1 differ from the scenario's rule*",
        "  rule-differs fault-a-first: the engine's citations differ from the scenario's (step 1: cited 42, the scenario expects pile.blocked.wild-top)",
    ])
    checked = pytester.runpytest(
        "--canasta-engine-cmd", fake("wrong-type", "--once", str(tmp_path / "flag2")), "--canasta-check-protocol",
    )
    checked.assert_outcomes(failed=1, passed=1)
    checked.stdout.fnmatch_lines([
        "*engine error: fault-a-first*",
        "step 1 (take [9H 9S]): protocol violation in the reply to apply: outcome.rule: 42 is not of type 'string'",
    ])


def test_an_unsupported_reply_makes_the_scenario_unsupported(pytester, tmp_path):
    two_scenarios(pytester)
    result = pytester.runpytest("--canasta-engine-cmd", fake("unsupported", "--once", str(tmp_path / "flag")), "-rs")
    result.assert_outcomes(skipped=1, passed=1)
    result.stdout.fnmatch_lines(["*unsupported: the engine does not support a step of this scenario: apply: not today"])


def test_what_the_handshake_does_not_declare_is_unsupported_with_the_reason(pytester):
    scenario(pytester, "declared-classic")
    scenario(pytester, "needs-legal-actions", (pytester.path / "scenarios/pile/declared-classic.yaml").read_text()
             .replace("declared-classic", "needs-legal-actions").replace("title:", "requires: [legal_actions]\ntitle:", 1))
    result = pytester.runpytest("--canasta-engine-cmd", fake("ok", "--variants", "classic-2p,classic-3p"), "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines([
        "scenarios * 0 * 0 * 0 * 2 *",
        "SKIPPED [[]1[]] scenarios/pile/declared-classic.yaml:1: unsupported: the engine does not support variant 'classic'",
    ])
    result = pytester.runpytest("--canasta-engine-cmd", fake("ok", "--features", "deal"), "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*needs-legal-actions*unsupported: the engine does not declare legal_actions"])


def test_fields_the_protocol_does_not_define_are_ignored(pytester):
    two_scenarios(pytester)
    result = pytester.runpytest("--canasta-engine-cmd", fake("ok", "--extra-fields"), "--canasta-check-protocol")
    result.assert_outcomes(passed=2)


def test_an_engine_speaking_another_protocol_version_does_not_start(pytester):
    two_scenarios(pytester)
    result = pytester.runpytest("--canasta-engine-cmd", fake("version", "--on", "handshake"))
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "*the engine did not start: the engine speaks protocol version 2; this harness speaks version 1*",
    ])


def test_an_engine_command_that_does_not_exist_is_reported(pytester):
    two_scenarios(pytester)
    result = pytester.runpytest("--canasta-engine-cmd", "no-such-engine-program --jsonl")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*cannot start the engine command 'no-such-engine-program --jsonl'*"])


def test_engine_and_engine_cmd_together_are_a_usage_error(pytester):
    two_scenarios(pytester)
    result = pytester.runpytest("--canasta-engine", "canasta_reference:create_engine", "--canasta-engine-cmd", fake("ok"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*not both*"])


def test_the_header_and_rerun_command_name_the_engine_program(pytester):
    scenario(pytester, "header-cmd")
    command = fake("wrong-type")
    result = pytester.runpytest("--canasta-engine-cmd", command, "--canasta-timeout", "3", "--canasta-strict-rules")
    result.stdout.fnmatch_lines([
        f"canasta: engine canasta-reference * ({command}); spec *",
        f"rerun just this scenario: *pytest scenarios/pile/header-cmd.yaml --canasta-engine-cmd {shlex.quote(command)} --canasta-timeout 3 --canasta-strict-rules",
    ])


# --- the client alone ---------------------------------------------------------------------------

def test_the_client_speaks_the_protocol_with_canasta_serve():
    with SubprocessEngine([sys.executable, "-m", "canasta_conformance", "serve"], check_protocol=True) as engine:
        caps = engine.capabilities()
        assert caps.name == "canasta-reference" and "classic" in caps.variants and "deal" in caps.features
        with pytest.raises(EngineFault, match="the engine reported an error in observe: RuntimeError: no position loaded"):
            engine.observe()
        assert engine.running, "an error reply leaves the process running"
    assert not engine.running


def test_a_fault_kills_the_process_and_later_calls_fail_at_once(tmp_path):
    engine = SubprocessEngine(fake("hang", "--on", "observe"), timeout=2)
    with pytest.raises(EngineFault, match=r"did not answer observe within 2 s \(killed\)") as fault:
        engine.observe()
    assert not engine.running
    assert any("fake engine: hang on observe" in line for line in fault.value.details)
    with pytest.raises(EngineFault, match="the engine process is not running"):
        engine.apply(Draw())
    engine.close()


def test_unsupported_is_its_own_exception():
    with SubprocessEngine(fake("unsupported", "--on", "apply")) as engine:
        with pytest.raises(OperationUnsupported, match="apply: not today"):
            engine.apply(Draw())


def test_a_missing_program_is_a_load_error():
    with pytest.raises(EngineLoadError, match="cannot start the engine command"):
        SubprocessEngine(["/no/such/program"])


def test_the_transcript_keeps_the_last_ten_lines_each_way_in_order():
    transcript = Transcript()
    for n in range(15):
        transcript.sent(f"request {n}")
        transcript.received(f"reply {n}")
    lines = transcript.lines()
    assert len(lines) == 20
    assert lines[:2] == ["-> request 5", "<- reply 5"] and lines[-1] == "<- reply 14"
    transcript.sent("x" * 1000)
    assert transcript.lines()[-1].endswith("... (1000 characters)")
