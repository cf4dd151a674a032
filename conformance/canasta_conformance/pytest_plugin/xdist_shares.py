"""Each xdist worker collects only its share of the scenario files, and runs it.

pytest-xdist's own schedulers need every worker to collect the whole run: the controller collects
nothing, compares the workers' collections and sends each worker the indices of the tests to run
in it. With thousands of scenarios that collection is a third of what a worker does for a
scenario (benchmarks/README.md), so two workers pay for it twice and ``-n 2`` lost to a run in
one process. Here the controller gives each worker a share, ``(index, count)`` in its
``workerinput``, and the worker collects every ``count``-th scenario file from its ``index``, in
the order pytest walks them (the same in every worker, which walks the same arguments); the
files of any other kind (Python tests) it collects whole, as before. :class:`ShareScheduling`
then runs each worker's own scenarios on it and spreads the tests that every worker collected
over the workers, chunk by chunk, as xdist's ``load`` scheduling does.

- A run whose collections came back the same (no scenario files, or one worker), or differ in
  anything but scenario files, is scheduled by xdist's ``LoadScheduling`` itself, unchanged (which
  reports collections that differ).
- A worker that crashes is replaced by one given the same share (``SharePlan``), which collects
  the same scenarios and runs those its predecessor had not finished; the one it was running is
  reported as crashed, as xdist does.
- Shares are handed out only with ``--dist load`` (the default of ``-n``) and only when this
  scheduler is the one xdist will use; any other ``--dist`` mode collects everything as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..contract.locations import SCENARIO_SUFFIXES

#: the ``workerinput`` key carrying a worker's share of the scenario files: [index, count]
SHARE_KEY = "canasta_share"


def take_share(workerinput: Any, seen: int) -> bool:
    """(worker) Whether the scenario file that is the ``seen``-th (from 0) this worker meets in its
    collection is in its share: always, unless the controller gave it one."""
    share = workerinput.get(SHARE_KEY) if isinstance(workerinput, dict) else None
    if share is None:
        return True
    index, count = share
    return bool(seen % count == index)


class SharePlan:
    """(controller) Which share each worker gets: the first ``count`` workers get 0 to count-1; a
    worker started to replace a crashed one gets the crashed one's share."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._next = 0
        self._freed: list[int] = []
        self._of_worker: dict[str, int] = {}

    def assign(self, node: Any) -> None:
        """Give ``node`` (about to start) its share, in its ``workerinput``."""
        if self._freed:
            share = self._freed.pop(0)
        else:
            share, self._next = self._next % self.count, self._next + 1
        self._of_worker[node.gateway.id] = share
        node.workerinput[SHARE_KEY] = [share, self.count]

    def release(self, node: Any) -> None:
        """``node`` went down with an error: its share goes to the worker that replaces it."""
        share = self._of_worker.pop(node.gateway.id, None)
        if share is not None:
            self._freed.append(share)


def _in_scenario_file(nodeid: str) -> bool:
    return nodeid.partition("::")[0].endswith(SCENARIO_SUFFIXES)


def _share_of(node: Any) -> int | None:
    share = node.workerinput.get(SHARE_KEY)
    return None if share is None else int(share[0])


class ShareScheduling:
    """An xdist scheduler (xdist's ``Scheduling`` protocol) for workers that each collected their
    share of the scenarios, besides the tests all of them collected (see the module's docstring).

    Every worker is sent its tests in chunks, its own scenarios first, then the tests all of them
    share (whichever worker asks first takes the next chunk), and is shut down once nothing is left
    for it: so ``-x`` or a crash stops it after its chunk, not after its whole share."""

    def __init__(self, config: Any, log: Any = None, on_collected: Callable[[int], None] | None = None) -> None:
        from xdist.scheduler import LoadScheduling  # type: ignore[import-untyped]

        #: xdist's own scheduler, which takes over when the collections are the same
        self.load = LoadScheduling(config, log)
        self.numnodes = self.load.numnodes
        self.maxschedchunk: int | None = config.getoption("maxschedchunk")
        self.log = self.load.log
        self._on_collected = on_collected
        self.shared_mode: bool | None = None  # decided at the first schedule(): True while LoadScheduling schedules
        self.node2collection: dict[Any, list[str]] = {}
        self.node2index: dict[Any, dict[str, int]] = {}
        self.node2pending: dict[Any, list[int]] = {}  # sent to the node and not finished (indices into its collection)
        self.share_todo: dict[int | None, list[str]] = {}  # a share's own tests not yet sent
        self.common_todo: list[str] = []  # tests every node collected, not yet sent
        self.owner: dict[str, int | None] = {}  # a share's own test -> the share

    # --- the Scheduling protocol ---------------------------------------------------------------------
    @property
    def nodes(self) -> list[Any]:
        return self.load.nodes if self.shared_mode else list(self.node2pending)

    @property
    def collection_is_completed(self) -> bool:
        return len(self.node2collection) >= int(self.numnodes)

    @property
    def tests_finished(self) -> bool:
        if self.shared_mode:
            return bool(self.load.tests_finished)
        if not self.collection_is_completed or self.shared_mode is None or self._todo_left():
            return False
        return all(len(pending) < 2 for pending in self.node2pending.values())

    @property
    def has_pending(self) -> bool:
        if self.shared_mode:
            return bool(self.load.has_pending)
        return self._todo_left() or any(self.node2pending.values())

    def add_node(self, node: Any) -> None:
        if self.shared_mode is not False:
            self.load.add_node(node)
        self.node2pending[node] = []

    def add_node_collection(self, node: Any, collection: Sequence[str]) -> None:
        if self.shared_mode is not False:
            self.load.add_node_collection(node, collection)
        self.node2collection[node] = list(collection)
        self.node2index[node] = {nodeid: index for index, nodeid in enumerate(collection)}
        if self.shared_mode is False:
            self._adopt(node)
        if self._on_collected is not None and self.collection_is_completed:
            self._on_collected(len({nodeid for ids in self.node2collection.values() for nodeid in ids}))

    def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
        if self.shared_mode:
            self.load.mark_test_complete(node, item_index, duration)
            return
        self.node2pending[node].remove(item_index)
        self._top_up(node)

    def mark_test_pending(self, item: str) -> None:
        if self.shared_mode:
            self.load.mark_test_pending(item)
            return
        if item in self.owner:
            self.share_todo[self.owner[item]].insert(0, item)
        else:
            self.common_todo.insert(0, item)
        for node in self.nodes:
            self._top_up(node)

    def remove_pending_tests_from_node(self, node: Any, indices: Sequence[int]) -> None:
        raise NotImplementedError()  # only work stealing asks for it

    def remove_node(self, node: Any) -> str | None:
        if self.shared_mode is not False:
            running: str | None = self.load.remove_node(node)
            if self.shared_mode:
                return running
        pending = self.node2pending.pop(node)
        self.node2index.pop(node, None)
        if not pending:
            return None
        collection = self.node2collection[node]
        crashed, *rest = (collection[index] for index in pending)
        for nodeid in reversed(rest):  # back to the front of what is left, for the share's next worker or any
            self.mark_test_pending(nodeid)
        return crashed

    def schedule(self) -> None:
        if self.shared_mode is None:
            collections = list(self.node2collection.values())
            everywhere = set(collections[0]).intersection(*collections[1:])
            same = all(collection == collections[0] for collection in collections)
            # shares differ only in scenario files; any other difference is xdist's to report
            others_differ = any(not _in_scenario_file(nodeid) for ids in collections for nodeid in ids if nodeid not in everywhere)
            self.shared_mode = same or others_differ
            if not self.shared_mode:
                self._divide(everywhere)
        if self.shared_mode:
            self.load.schedule()
            return
        for node in self.nodes:
            self._top_up(node)

    # --- the shares --------------------------------------------------------------------------------
    def _divide(self, everywhere: set[str]) -> None:
        """Split the first collections into each share's own tests and those all nodes hold (``everywhere``)."""
        self.common_todo = [nodeid for nodeid in next(iter(self.node2collection.values())) if nodeid in everywhere]
        for node, collection in self.node2collection.items():
            share = _share_of(node)
            if share in self.share_todo:
                continue  # a worker that crashed while collecting and its replacement: the same share
            own = [nodeid for nodeid in collection if nodeid not in everywhere]
            self.share_todo.setdefault(share, []).extend(own)
            self.owner.update(dict.fromkeys(own, share))

    def _adopt(self, node: Any) -> None:
        """A node started after the first collections (it replaces a crashed one): it runs what is
        left of its share; what it did not collect cannot run anywhere, and is said in the log."""
        share = _share_of(node)
        index = self.node2index[node]
        todo = self.share_todo.get(share, [])
        missing = [nodeid for nodeid in todo if nodeid not in index]
        if missing:
            self.log(f"worker {node.gateway.id} did not collect {len(missing)} test(s) of its share, e.g. {missing[0]}")
            self.share_todo[share] = [nodeid for nodeid in todo if nodeid in index]

    def _todo_left(self) -> bool:
        return bool(self.common_todo) or any(self.share_todo.values())

    def _top_up(self, node: Any) -> None:
        """Send ``node`` another chunk when it runs low (as xdist's load scheduling does: a quarter of
        what is left for it at first, then up to half); shut it down once nothing is left for it
        (it runs what it was sent, the last test once it knows no other follows)."""
        if node.shutting_down or node not in self.node2index:
            return
        own = self.share_todo.get(_share_of(node), [])
        if not own and not self.common_todo:
            node.shutdown()
            return
        pending = self.node2pending[node]
        left = len(own) + len(self.common_todo) // len(self.node2pending)
        low, high = max(2, left // 4), max(2, left // 2)
        if len(pending) >= low:
            return
        count = (low if not pending else high) - len(pending)
        if self.maxschedchunk is not None:
            count = min(count, max(2 - len(pending), self.maxschedchunk))
        sent = own[:count]
        del own[:count]
        if len(sent) < count:
            more = self.common_todo[: count - len(sent)]
            del self.common_todo[: len(more)]
            sent += more
        index = self.node2index[node]
        indices = [index[nodeid] for nodeid in sent]
        pending.extend(indices)
        node.send_runtest_some(indices)
        if not own and not self.common_todo:
            node.shutdown()  # nothing more for it: it runs the last test it was sent without waiting for another


def show_total(dsession: Any, total: int) -> None:
    """(controller) Once every worker has collected: the run's number of tests is ``total``, not
    a worker's share, both for pytest's progress (``session.testscollected``, which xdist sets to
    each worker's count as it arrives) and for xdist's "N workers [M items]" line (which shows the
    first worker's count, every worker collecting the whole run in xdist's own schedulers). Left
    as xdist shows them if this xdist keeps them otherwise."""
    session = getattr(dsession, "_session", None)
    if session is not None:
        session.testscollected = total
    trdist: Any = getattr(dsession, "trdist", None)
    status = getattr(trdist, "_status", None)
    if not isinstance(status, dict) or not callable(getattr(trdist, "setstatus", None)):
        return
    for key, value in list(status.items()):
        if _collected(value):
            status[key] = (value[0], total)
    setstatus = trdist.setstatus
    if getattr(setstatus, "canasta_total", None) is None:

        def with_total(spec: Any, state: Any, *, tests_collected: int, show: bool = True) -> None:
            if getattr(state, "name", None) == "CollectionDone":
                tests_collected = with_total.canasta_total  # type: ignore[attr-defined]
            setstatus(spec, state, tests_collected=tests_collected, show=show)

        trdist.setstatus = with_total
    trdist.setstatus.canasta_total = total


def _collected(value: object) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and getattr(value[0], "name", None) == "CollectionDone"
