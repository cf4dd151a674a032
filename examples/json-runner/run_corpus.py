#!/usr/bin/env python3
"""A conformance runner that needs nothing of this project but its JSON export.

It reads the folder written by ``canasta export DIR`` and drives an engine program over the
JSON-lines protocol (docs/protocol.md), following docs/guides/writing-a-runner.md step by step.
It uses Python's standard library only, so it reads as a model for a runner in any language::

    canasta export corpus/
    python examples/json-runner/run_corpus.py corpus/ --engine-cmd "canasta serve"

It prints one line per scenario that did not pass and a summary; ``--json FILE`` writes every
scenario's status. The exit code is 1 when a scenario failed or ended in an error.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

PER_SEAT_OR_SIDE = ("hands", "red_threes")


class Failed(Exception):
    """The engine did something the scenario does not allow."""


class Unsupported(Exception):
    """The engine answered ``unsupported``."""


class EngineError(Exception):
    """The engine reported an error, exited, or answered something unreadable."""


class Engine:
    """One engine process, spoken to one request at a time."""

    def __init__(self, command: str) -> None:
        self.process = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.seq = 0
        reply = self.call("handshake", protocol=1)
        if reply.get("protocol") != 1:
            raise EngineError(f"the engine speaks protocol {reply.get('protocol')!r}")
        self.capabilities: dict[str, Any] = reply["engine"]

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        self.seq += 1
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps({"seq": self.seq, "op": op, **fields}) + "\n")
            self.process.stdin.flush()
        except OSError as error:
            raise EngineError(f"cannot write to the engine: {error}") from None
        line = self.process.stdout.readline()
        if not line:
            raise EngineError(f"the engine exited while answering {op}")
        try:
            reply: dict[str, Any] = json.loads(line)
        except ValueError:
            raise EngineError(f"the engine answered {op} with a line that is not JSON") from None
        if not isinstance(reply, dict):
            raise EngineError(f"the engine answered {op} with something other than a JSON object")
        if reply.get("seq") != self.seq:
            raise EngineError(f"the reply to {op} has seq {reply.get('seq')!r}, the request had {self.seq}")
        if "error" in reply:
            raise EngineError(f"the engine reported an error in {op}: {reply['error'].get('message')}")
        if reply.get("unsupported"):
            raise Unsupported(reply.get("message") or op)
        return reply

    def stop(self) -> None:
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps({"seq": self.seq + 1, "op": "stop"}) + "\n")
            self.process.stdin.close()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


# ---- comparing, as the guide defines it


def multiset(cards: list[str] | None) -> list[str]:
    return sorted(cards or [])


def melds_multiset(melds: list[list[str]] | None) -> list[list[str]]:
    return sorted(sorted(meld) for meld in melds or [])


#: what a key an engine leaves out of a position means: only hands, melds, pile and stock are
#: required (position.schema.json); any other key left out holds its default
POSITION_DEFAULTS: dict[str, Any] = {
    "dealer": None, "turn": 0, "phase": "draw", "ended": None, "hand_number": 1, "talons": [], "sitting_out": [],
    "lone_hand": None, "penalties": [],
}
FACT_DEFAULTS: dict[str, Any] = {
    "melded_seats": [], "melded_ranks": [], "new_ranks": [], "took_pile": False, "question": None,
    "covered_black_three": False, "last_card_red_three": False,
}
ENDED_DEFAULTS: dict[str, Any] = {"seat": None, "concealed": False}


def fact_text(value: Any) -> str:
    """A rank or a seat of a list fact as one text: 7 and "7", 10 and "T", seq:4H and SEQ:4h alike."""
    text = str(value).upper().replace("10", "T")
    return "seq:" + text[4:] if text.startswith("SEQ:") else text


def with_defaults(position: dict[str, Any]) -> dict[str, Any]:
    """The position with every key left out filled in, its facts and its end too."""
    sides = len(position.get("melds") or [])
    out = {**POSITION_DEFAULTS, "scores": [0] * sides, **position}
    for key, value in POSITION_DEFAULTS.items():
        if out[key] is None:
            out[key] = value
    out["red_threes"] = position.get("red_threes") or [[] for _ in range(sides)]
    facts = {**FACT_DEFAULTS, **(position.get("facts") or {})}
    out["facts"] = {key: sorted(set(map(fact_text, value or []))) if isinstance(FACT_DEFAULTS.get(key), list) else value for key, value in facts.items()}
    if out["ended"]:
        out["ended"] = {**ENDED_DEFAULTS, **out["ended"]}
    out["sitting_out"] = sorted(out["sitting_out"])
    return out


def position_differences(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Every key of the partial ``expected`` position that ``actual`` does not match."""
    out = []
    actual = with_defaults(actual)
    for key, want in expected.items():
        if key in PER_SEAT_OR_SIDE or key == "melds":
            got_all = actual.get(key) or []
            same = melds_multiset if key == "melds" else multiset
            for index, item in enumerate(want):
                got = got_all[index] if index < len(got_all) else []
                if item is not None and same(item) != same(got):
                    out.append(f"{key}[{index}]: expected {item}, actual {got}")
        elif key == "talons":  # next first; each talon a multiset
            got_talons = actual.get("talons") or []
            if len(want) != len(got_talons) or any(multiset(t) != multiset(g) for t, g in zip(want, got_talons, strict=True)):
                out.append(f"talons: expected {want}, actual {got_talons}")
        elif key == "hand_counts":
            counts = [len(hand) for hand in actual.get("hands") or []]
            for seat, count in enumerate(want):
                if count is not None and (seat >= len(counts) or counts[seat] != count):
                    out.append(f"hand_counts[{seat}]: expected {count}")
        elif key == "penalties":  # in the order they arose; an engine may leave the key out when there are none
            got_penalties = [{k: v for k, v in p.items() if k != "minimum_increase" or v} for p in actual.get("penalties") or []]
            if got_penalties != want:
                out.append(f"penalties: expected {want}, actual {got_penalties}")
        elif key in ("stock_count", "pile_count"):
            got_count = len(actual.get(key.replace("_count", "")) or [])
            if got_count != want:
                out.append(f"{key}: expected {want}, actual {got_count}")
        elif key == "facts":
            facts = actual.get("facts") or {}
            for fact, value in want.items():
                got_fact = facts.get(fact)
                if isinstance(value, list):
                    if sorted(set(map(fact_text, value))) != got_fact:
                        out.append(f"facts.{fact}: expected {value}, actual {got_fact}")
                elif value != got_fact:
                    out.append(f"facts.{fact}: expected {value!r}, actual {got_fact!r}")
        elif key == "ended" and want is not None and actual.get("ended") is not None:
            for item, value in want.items():
                if actual["ended"].get(item) != value:
                    out.append(f"ended.{item}: expected {value!r}, actual {actual['ended'].get(item)!r}")
        elif key == "sitting_out" and sorted(want) != actual[key]:  # a set of seats
            out.append(f"{key}: expected {want!r}, actual {actual[key]!r}")
        elif key != "sitting_out" and actual.get(key) != want:  # pile and stock in order, turn, phase, scores, dealer ...
            out.append(f"{key}: expected {want!r}, actual {actual.get(key)!r}")
    return out


def same_position(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whole positions: equal, hands, melds and red threes compared as multisets."""
    def canonical(position: dict[str, Any]) -> dict[str, Any]:
        out = with_defaults(position)  # keys left out hold their defaults; list facts are sets
        for key in PER_SEAT_OR_SIDE:
            out[key] = [multiset(cards) for cards in out[key]]
        out["melds"] = [melds_multiset(melds) for melds in position.get("melds") or []]
        out["talons"] = [multiset(talon) for talon in out["talons"]]
        out.pop("variant", None)  # the scenario's: an engine may leave it out
        out.pop("options", None)
        return out

    return canonical(before) == canonical(after)


def card_class(token: str) -> str:
    """A card with its suit forgotten (eq.suits.irrelevant): its rank, a red three and a black three
    apart (``3r``, ``3b``), ``JK`` a joker. The export writes cards in the canonical form."""
    if token == "JK":
        return token
    rank, suit = token[:-1], token[-1]
    return ("3r" if suit in "DH" else "3b") if rank == "3" else rank


def canonical_group(item: Any) -> Any:
    """A meld group as a comparable value: its cards by rank (a sequence group keeps its suits)
    sorted, and the rank it names where that says something (not the rank of its natural cards,
    nor ``wild`` for wild cards alone, which are the same group unnamed)."""
    if isinstance(item, dict):
        cards = item.get("cards") or []
        rank = "" if item.get("rank") is None else str(item.get("rank"))
        if item.get("sequence") is True:
            return ("sequence", tuple(sorted(cards)))
        naturals = {c[:-1] for c in cards if c != "JK" and c[:-1] != "2"}  # by rank: a red or black three is a 3
        rank = rank.upper().replace("10", "T")
        if naturals == {rank} or (not naturals and rank == "WILD"):
            rank = ""  # the rank its natural cards give, or the wild-card meld: naming it says nothing more
        return (rank, tuple(sorted(card_class(c) for c in cards)))
    return ("", tuple(sorted(card_class(c) for c in item)))


def canonical_action(action: Any) -> str:
    """An action as a comparable text, suits forgotten (a sequence group keeps them): the cards of
    a ``take`` as a multiset, the groups as a multiset of groups, a ``next_hand`` by the length of
    its deck. Simpler than the suite in one way: sequence groups that touch are not joined, which
    can only fail an engine that the suite passes."""
    action = dict(action)
    if action.get("type") == "take":
        action["cards"] = sorted(card_class(c) for c in action.get("cards") or [])
    if action.get("type") == "discard" and isinstance(action.get("card"), str):
        action["card"] = card_class(action["card"])
    if action.get("type") == "special_hand" and isinstance(action.get("discard"), str):
        action["discard"] = card_class(action["discard"])
    if action.get("type") == "next_hand":  # by the length of its deck alone (its first_player too is left out)
        action = {"type": "next_hand", "deck": len(action.get("deck") or [])}
    if action.get("type") in ("meld", "take"):  # a take's "melds" may be left out: no further groups
        action["melds"] = sorted(canonical_group(item) for item in action.get("melds") or [])
    return json.dumps(action, sort_keys=True)


# ---- running


def unsupported_reason(scenario: dict[str, Any], capabilities: dict[str, Any]) -> str | None:
    if scenario["variant"] not in capabilities.get("variants", []):
        return f"the engine does not support variant {scenario['variant']!r}"
    options = capabilities.get("options", [])
    missing = sorted(set(scenario["options"]) - set(options)) if "*" not in options else []
    if missing:
        return f"the engine does not support option(s) {', '.join(missing)}"
    features = sorted(set(scenario["requires"]) - set(capabilities.get("features", [])))
    if features:
        return f"the engine does not declare {', '.join(features)}"
    return None


def check_outcome(expect: dict[str, Any], outcome: dict[str, Any], cites_rules: bool) -> bool:
    """Whether the outcome is right; False when only its citation differs (rule-differs)."""
    status = outcome.get("status")
    if expect["outcome"] == "rejected":
        if status != "rejected":
            raise Failed(f"expected a rejection citing {' or '.join(expect['violates'])}, the engine answered {status}")
        # a citation is judged only for an engine that declares cites_rules
        if cites_rules and expect["violates"] and outcome.get("rule") not in expect["agrees"]:
            return False
    elif status != expect["outcome"]:
        raise Failed(f"expected the action to be {expect['outcome']}, the engine answered {status}")
    return True


def run_step(engine: Engine, step: dict[str, Any], restore: Callable[[], None]) -> bool:
    """Run one step; False when a citation differs but everything else is right. ``restore`` puts
    the engine back where the step leaves it (after the legal-list check has tried actions)."""
    expect = step["expect"]
    cited_right = True
    if step["action"] is not None:
        before = engine.call("observe")["position"] if expect["outcome"] != "accepted" else None
        outcome = engine.call("apply", action=step["action"])["outcome"]
        cited_right = check_outcome(expect, outcome, "cites_rules" in engine.capabilities.get("features", []))
        if before is not None and not same_position(before, engine.call("observe")["position"]):
            raise Failed("the rejected action changed the position")
    if "position" in expect or "hand_over" in expect:
        position = engine.call("observe")["position"]
        differences = position_differences(expect.get("position") or {}, position)
        if "hand_over" in expect and (position.get("phase") == "over") != expect["hand_over"]:
            differences.append(f"hand_over: expected {expect['hand_over']}")
        if differences:
            raise Failed("the position differs: " + "; ".join(differences))
    if "score" in expect or "game" in expect:
        sheet = engine.call("score")["score"]
        for side, want in enumerate(expect.get("score") or []):
            got = sheet["sides"][side] if side < len(sheet["sides"]) else {}
            wrong = [f"score[{side}].{k}" for k, v in want.items() if got.get(k, 0) != v]  # a missing line is 0
            if wrong:
                raise Failed("the score sheet differs: " + ", ".join(wrong))
        for key, want in (expect.get("game") or {}).items():
            if (sheet.get("game_over", False) if key == "over" else sheet.get("winner")) != want:  # left out: false, null
                raise Failed(f"game.{key}: expected {want!r}")
    if "legal_actions" in expect:
        actions = engine.call("legal_actions")["actions"]
        listed = {canonical_action(a) for a in actions}
        missing = [
            a for a in expect["legal_actions"]["includes"]
            if canonical_action(a) not in listed and not listed_in_steps(engine, a, actions, restore)
        ]
        wrong = [a for a in expect["legal_actions"]["excludes"] if canonical_action(a) in listed]
        if missing or wrong:
            raise Failed(f"legal_actions differs: {len(missing)} missing, {len(wrong)} listed but illegal")
    return cited_right


def listed_in_steps(engine: Engine, action: dict[str, Any], listed: list[dict[str, Any]], restore: Callable[[], None]) -> bool:
    """A meld of several groups (or a take with further groups) that the engine does not list may be
    listed as its parts: a listed action of its type laying some of its groups (a take: with the same
    cards, up to suits), after which the rest, as a meld, is listed (again perhaps in parts). That part of the
    expected action is played each time (once: listed actions that differ only by suits make the same
    try) and the engine put back with ``restore``; a try the engine fails shows nothing."""
    groups = action.get("melds") or []
    if action.get("type") not in ("meld", "take") or not groups:
        return False
    tried: set[str] = set()
    for first in listed:
        if first.get("type") != action["type"] or (first["type"] == "meld" and not first.get("melds")):
            continue
        if first["type"] == "take" and sorted(map(card_class, first.get("cards") or [])) != sorted(map(card_class, action.get("cards") or [])):
            continue
        rest, part = list(action["melds"]), []
        for group in first.get("melds") or []:
            match = next((g for g in rest if canonical_group(g) == canonical_group(group)), None)
            if match is None:
                break
            rest.remove(match)
            part.append(match)
        else:
            if not rest:
                continue
            laid = {**action, "melds": part}  # that part of the expected action, with its cards
            if canonical_action(laid) in tried:
                continue
            tried.add(canonical_action(laid))
            try:
                if engine.call("apply", action=laid)["outcome"].get("status") != "accepted":
                    continue
                after = engine.call("legal_actions")["actions"]
                remaining = {"type": "meld", "melds": rest}
                if canonical_action(remaining) in {canonical_action(a) for a in after}:
                    return True
                if listed_in_steps(engine, remaining, after, partial(restore_then, engine, restore, laid)):
                    return True
            except (EngineError, Unsupported):
                continue  # as the suite: an error reply to a try shows nothing (a dead engine fails the restore)
            finally:
                restore()
    return False


def restore_then(engine: Engine, restore: Callable[[], None], action: dict[str, Any]) -> None:
    restore()
    engine.call("apply", action=action)


def run_scenario(engine: Engine, scenario: dict[str, Any]) -> tuple[str, str]:
    reason = unsupported_reason(scenario, engine.capabilities)
    if reason:
        return "unsupported", reason
    start = dict(scenario["start"])
    op = start.pop("op")
    differs: list[int] = []

    def replay(last: int) -> None:  # the scenario's start again, then the actions of its steps up to ``last``
        engine.call(op, **start)
        for step in scenario["steps"][:last]:
            if step["action"] is not None:
                engine.call("apply", action=step["action"])

    try:
        engine.call(op, **start)
        for number, step in enumerate(scenario["steps"], 1):
            try:
                if not run_step(engine, step, partial(replay, number)):
                    differs.append(number)
            except Failed as failure:
                return "failed", f"step {number}: {failure}"
    except Unsupported as unsupported:
        return "unsupported", f"the engine does not support a step of this scenario: {unsupported}"
    except EngineError as error:
        return "error", str(error)
    if differs:
        return "rule-differs", f"the engine cited another rule at step {differs[0]}"
    return "passed", ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a folder written by 'canasta export'")
    parser.add_argument("--engine-cmd", required=True, help="the engine program, e.g. 'canasta serve'")
    parser.add_argument("--json", type=Path, help="write {scenario id: status} to this file")
    args = parser.parse_args(argv)
    manifest = json.loads((args.corpus / "manifest.json").read_text(encoding="utf-8"))
    results: dict[str, dict[str, str]] = {}
    engine: Engine | None = None
    for entry in manifest["scenarios"]:
        scenario = json.loads((args.corpus / entry["file"]).read_text(encoding="utf-8"))
        if engine is None:
            engine = Engine(args.engine_cmd)
        status, message = run_scenario(engine, scenario)
        results[scenario["id"]] = {"status": status, "message": message}
        if status != "passed":
            print(f"{status.upper()} {scenario['id']}: {message}")
        if status == "error":  # a fresh process for the next scenario
            engine.stop()
            engine = None
    if engine is not None:
        engine.stop()
    counts = Counter(result["status"] for result in results.values())
    print(", ".join(f"{counts[s]} {s}" for s in ("passed", "failed", "error", "unsupported", "rule-differs")) + f" of {len(results)} scenarios")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 1 if counts["failed"] or counts["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
