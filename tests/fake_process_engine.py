"""A misbehaving engine program for testing the harness (in the style of Bowtie's envsonschema).

    python fake_process_engine.py MODE [--on OP] [--once FLAGFILE] [--pids FILE] [--features F,..]

It serves the reference engine over the JSON-lines protocol, except that on the first request of
operation OP (default: apply) it misbehaves as MODE says. With ``--once FLAGFILE`` only the first
process to get there misbehaves (it creates FLAGFILE), so a restarted process behaves; ``--pids``
appends the process id to FILE at every load, to count the processes that ran scenarios;
``--variants`` and ``--features`` replace what the handshake declares (comma-separated);
``--extra-fields`` adds fields the protocol does not define to every reply (they must be ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from canasta_conformance.transports.server import Server
from canasta_reference import create_engine

MODES = ("ok", "crash", "raise", "hang", "garbage", "malformed", "wrong-type", "wrong-seq", "error", "version", "unsupported")


def misbehave(mode: str, request: dict, out: object) -> bool:
    """Do the fault; True if the request is answered (or never will be)."""
    seq = request.get("seq")
    print(f"fake engine: {mode} on {request.get('op')}", file=sys.stderr, flush=True)
    if mode == "crash":
        os._exit(3)
    if mode == "raise":
        raise RuntimeError("a bug in the fake engine")
    if mode == "hang":
        time.sleep(3600)
    replies = {
        "garbage": "this is not JSON",
        "malformed": json.dumps({"seq": seq, "outcome": {"status": "maybe"}}),
        "wrong-type": json.dumps({"seq": seq, "outcome": {"status": "rejected", "rule": 42}}),
        "wrong-seq": json.dumps({"seq": f"{seq}-not", "outcome": {"status": "accepted"}}),
        "error": json.dumps({"seq": seq, "error": {"message": "engine exploded", "traceback": "Traceback (most recent call last):\nValueError: engine exploded"}}),
        "version": json.dumps({"seq": seq, "protocol": 2, "engine": {"name": "future", "version": "9", "variants": ["classic"]}}),
        "unsupported": json.dumps({"seq": seq, "unsupported": True, "message": "not today"}),
    }
    if mode in replies:
        print(replies[mode], file=out, flush=True)  # type: ignore[call-overload]
        return True
    return False


def declare(reply: str, variants: str | None, features: str | None) -> str:
    message = json.loads(reply)
    for key, value in (("variants", variants), ("features", features)):
        if value is not None:
            message["engine"][key] = [v for v in value.split(",") if v]
    return json.dumps(message)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--on", default="apply")
    parser.add_argument("--once", type=Path)
    parser.add_argument("--pids", type=Path)
    parser.add_argument("--variants")
    parser.add_argument("--features")
    parser.add_argument("--extra-fields", action="store_true")
    args = parser.parse_args()
    server = Server(create_engine())
    armed = args.mode != "ok"
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("op") == "load" and args.pids:
            with args.pids.open("a") as pids:
                pids.write(f"{os.getpid()}\n")
        if armed and request.get("op") == args.on:
            armed = False
            if args.once is None or not args.once.exists():
                if args.once is not None:
                    args.once.write_text("done")
                if misbehave(args.mode, request, sys.stdout):
                    continue
        reply = server.handle_line(line)
        if reply is not None and request.get("op") == "handshake":
            reply = declare(reply, args.variants, args.features)
        if reply is not None and args.extra_fields:
            reply = json.dumps({"x_elapsed_ms": 0.25, **json.loads(reply), "x_note": {"from": "a newer engine"}})
        if reply is not None:
            print(reply, flush=True)
        if server.stopped:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
