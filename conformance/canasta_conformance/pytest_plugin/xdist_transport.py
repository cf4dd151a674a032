"""What crosses from an xdist worker to the controller, made cheap for thousands of fast tests.

pytest-xdist sends six messages through execnet for every test a worker runs (its start, three
reports, its finish, the scheduler's "complete"), each encoded item by item in Python, written to
the pipe and decoded by the controller's receiver thread: for a scenario that runs in about a
millisecond this costs more than running it (benchmarks/README.md). The plugin makes two changes,
both agreed through ``workerinput`` (a worker changes nothing unless its controller asked, and
the controller asks only when it can read the result):

- **one message a test**: the worker holds a test's start, reports and finish and sends them with
  its "complete" as one message, :data:`BATCH_EVENT`, whose events are one ``marshal`` blob; the
  controller hands each event, in order, to xdist as if it had come alone. Any other event (a
  warning, the end of the run) first sends what is held, so the order never changes. A test is
  never held past its end: the controller sees its reports when it finishes rather than as it
  runs, which for a test that crashes its worker loses only what xdist reports by itself (the
  test that was running, from its schedule).
- **reports as one blob**: a report's serialized data is ``marshal``-ed
  (:func:`~..running.collector.pack_report_data`), for reports that still travel alone.

A worker whose run is made only of scenario items also drops pytest's terminal reporter once it
has collected them (:func:`drop_worker_terminal`): xdist does not forward a worker's standard
output (it is the null device), so the reporter's work for every report, and its end-of-run
summary, which has every plugin's summary hook run (Hypothesis's imports Hypothesis, about a
third of a second), only fed the null device. The controller's reporter shows the run.

``marshal`` carries the plain types execnet carries (tuples stay tuples) and refuses objects of
classes of their own; whatever it refuses is sent as xdist sends it. (It also carries a few types
execnet does not, such as ``bytearray``, which an xdist report never holds.)
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from typing import Any

#: the ``workerinput`` key by which the controller asks a worker for one message a test (its value:
#: the controller's marshal format version)
BATCHING_KEY = "canasta_batch_events"
#: the event carrying a test's events as one marshal blob
BATCH_EVENT = "canasta_events"
#: the controller's event that carries, through xdist's queue, the events one batch put on it
QUEUED_EVENT = "canasta_queued"
#: the events a worker holds until the test's "complete" (xdist's names)
HELD = frozenset({"logstart", "logfinish", "testreport"})
COMPLETE = "runtest_protocol_complete"

SendEvent = Callable[..., None]


class HeldEvents:
    """(worker) Stands in for xdist's ``WorkerInteractor.sendevent``: holds a test's events and sends
    them with its "complete" as one :data:`BATCH_EVENT`."""

    def __init__(self, send: SendEvent) -> None:
        self._send = send
        self._held: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, name: str, **kwargs: Any) -> None:
        if name in HELD:
            self._held.append((name, kwargs))
            return
        if name == COMPLETE:
            self._held.append((name, kwargs))
            self.flush()
            return
        self.flush()
        self._send(name, **kwargs)

    def flush(self) -> None:
        held, self._held = self._held, []
        if not held:
            return
        try:
            blob = marshal.dumps(held)
        except ValueError:  # not plain data: each event as xdist sends it (execnet says what it cannot carry)
            for name, kwargs in held:
                self._send(name, **kwargs)
            return
        self._send(BATCH_EVENT, events=blob)


def hold_worker_events(config: Any) -> bool:
    """(worker) If the controller asked for it, route xdist's events through :class:`HeldEvents`;
    True if done."""
    workerinput = getattr(config, "workerinput", None)
    if not isinstance(workerinput, dict) or workerinput.get(BATCHING_KEY) != marshal.version:
        return False
    for plugin in config.pluginmanager.get_plugins():
        send = getattr(plugin, "sendevent", None)
        if type(plugin).__name__ == "WorkerInteractor" and callable(send) and not isinstance(send, HeldEvents):
            plugin.sendevent = HeldEvents(send)
            return True
    return False


def receive_batches(node: Any, dsession: Any = None) -> None:
    """(controller) Before xdist starts a worker: unpack the worker's :data:`BATCH_EVENT` messages
    into the events xdist knows, and ask the worker to send them. Only where this xdist receives
    through ``process_from_remote`` and has not yet opened the worker's channel (pytest-xdist 3
    binds that method to the channel after this hook): an xdist that had bound it already would
    never see the replacement, and a worker asked to batch would send events it cannot read.

    With ``dsession`` (xdist's controller, which takes the events off its queue one at a time in
    its main thread, ``loop_once``, and hands each to its ``worker_<name>`` method), the events of
    one batch cross to the main thread as one queued event, :data:`QUEUED_EVENT`, handed to the
    same methods in the same order: one hand-over between the threads a test instead of six."""
    receive = getattr(node, "process_from_remote", None)
    if not callable(receive) or not isinstance(getattr(node, "workerinput", None), dict) or hasattr(node, "channel"):
        return
    queued = _queued_handler(dsession) if callable(getattr(node, "putevent", None)) else None

    def process_from_remote(eventcall: Any) -> None:
        if not (isinstance(eventcall, tuple) and len(eventcall) == 2 and eventcall[0] == BATCH_EVENT):
            receive(eventcall)
            return
        events = marshal.loads(eventcall[1]["events"])
        if queued is None:
            for event in events:
                receive(event)
            return
        put = node.putevent  # the receiver thread of this worker's channel is the only one that puts its events
        held: list[tuple[str, dict[str, Any]]] = []
        node.putevent = held.append
        try:
            for event in events:
                receive(event)
        finally:
            node.putevent = put
        if held:
            put((QUEUED_EVENT, {"events": held}))

    node.process_from_remote = process_from_remote
    node.workerinput[BATCHING_KEY] = marshal.version


def _queued_handler(dsession: Any) -> Callable[..., None] | None:
    """Teach xdist's controller the :data:`QUEUED_EVENT` (once); None if it does not take events
    as expected (then each event is queued as xdist queues it)."""
    method = f"worker_{QUEUED_EVENT}"
    found = getattr(dsession, method, None)
    if callable(found):
        return found  # type: ignore[no-any-return]
    if dsession is None or not callable(getattr(dsession, "loop_once", None)) or not callable(getattr(dsession, "worker_testreport", None)):
        return None

    def handle(events: list[tuple[str, dict[str, Any]]]) -> None:
        for name, kwargs in events:
            getattr(dsession, f"worker_{name}")(**kwargs)

    setattr(dsession, method, handle)
    return handle


def drop_worker_terminal(config: Any) -> bool:
    """(worker) Unregister pytest's terminal reporter of an xdist worker, whose standard output xdist
    sends to the null device; True if done. The plugin calls it once collection has finished, and
    only for a run made only of scenario items (the reporter is not needed to run them; a test of
    another kind may ask for it, e.g. a fixture shown with ``--setup-show``)."""
    if not isinstance(getattr(config, "workerinput", None), dict):
        return False
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return False
    config.pluginmanager.unregister(reporter)
    return True
