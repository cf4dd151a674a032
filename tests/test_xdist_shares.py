"""ShareScheduling, the xdist scheduler of workers that each collected their share of the
scenarios, driven as xdist's controller drives it (add_node, add_node_collection, schedule,
mark_test_complete, remove_node), with stand-in workers that run what they are sent in order."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from canasta_conformance.pytest_plugin.xdist_shares import SHARE_KEY, SharePlan, ShareScheduling, take_share


class Config:
    def __init__(self, workers: int, maxschedchunk: int | None = None) -> None:
        self.values = {"tx": [f"{workers}*popen"], "maxschedchunk": maxschedchunk}
        self.reports: list[Any] = []  # what xdist's scheduler reports through pytest_collectreport
        self.hook = SimpleNamespace(pytest_collectreport=lambda report: self.reports.append(report))

    def getvalue(self, name: str) -> Any:
        return self.values[name]

    getoption = getvalue


class Gateway:
    def __init__(self, gid: str) -> None:
        self.id = gid


class Worker:
    """Runs what it is sent, in order; like an xdist worker it starts a test only once it knows the
    next one, or that none follows (shut down)."""

    def __init__(self, gid: str) -> None:
        self.gateway = Gateway(gid)
        self.workerinput: dict[str, Any] = {}
        self.queue: list[int] = []
        self.down = False
        self.ran: list[str] = []

    @property
    def shutting_down(self) -> bool:
        return self.down

    def send_runtest_some(self, indices: list[int]) -> None:
        assert not self.down, "sent tests after its shutdown"
        self.queue += indices

    def shutdown(self) -> None:
        self.down = True

    def step(self, sched: ShareScheduling, collection: list[str]) -> bool:
        """Run one test if it may; False if it cannot now."""
        if not self.queue or (len(self.queue) < 2 and not self.down):
            return False
        index = self.queue.pop(0)
        self.ran.append(collection[index])
        sched.mark_test_complete(self, index)
        return True


def _scenario(number: int) -> str:
    return f"scenarios/pile/s{number}.yaml::s{number}"


def _collections(scenarios: list[str], shared: list[str], plan: SharePlan, workers: list[Worker]) -> dict[Worker, list[str]]:
    """What each worker collects: the shared tests, and its share of the scenario files."""
    out = {}
    for worker in workers:
        plan.assign(worker)
        own = [sid for seen, sid in enumerate(scenarios) if take_share(worker.workerinput, seen)]
        out[worker] = [*shared[:1], *own, *shared[1:]]
    return out


def _drive(sched: ShareScheduling, collections: dict[Worker, list[str]]) -> None:
    """Run every worker until none can go on (round robin, one test each)."""
    moved = True
    while moved:
        moved = False
        for worker, collection in collections.items():
            if worker in sched.nodes:
                moved = worker.step(sched, collection) or moved


def _start(workers: int, scenarios: list[str], shared: list[str], maxschedchunk: int | None = None):
    sched = ShareScheduling(Config(workers, maxschedchunk))
    plan = SharePlan(workers)
    nodes = [Worker(f"gw{i}") for i in range(workers)]
    collections = _collections(scenarios, shared, plan, nodes)
    for node in nodes:
        sched.add_node(node)
    for node in nodes:
        sched.add_node_collection(node, collections[node])
    sched.schedule()
    return sched, plan, nodes, collections


def test_a_worker_takes_every_countth_scenario_file_from_its_index():
    assert [take_share({SHARE_KEY: [1, 3]}, seen) for seen in range(7)] == [False, True, False, False, True, False, False]
    assert all(take_share({}, seen) for seen in range(3))  # no share given: everything


@pytest.mark.parametrize("maxschedchunk", [None, 3])
def test_each_worker_runs_its_own_share_and_the_shared_tests_run_once(maxschedchunk):
    scenarios = [_scenario(i) for i in range(101)]
    shared = ["tests/test_a.py::test_a", "tests/test_a.py::test_b", "tests/test_c.py::test_c"]
    sched, _, nodes, collections = _start(2, scenarios, shared, maxschedchunk)
    assert sched.shared_mode is False
    _drive(sched, collections)
    assert sched.tests_finished and not sched.has_pending and all(node.down for node in nodes)
    ran = [test for node in nodes for test in node.ran]
    assert sorted(ran) == sorted(scenarios + shared)  # every test once
    for node in nodes:
        assert {test for test in node.ran if test.startswith("scenarios/")} == {t for t in collections[node] if t.startswith("scenarios/")}


def test_the_same_collections_are_scheduled_by_xdists_load_scheduling():
    sched, _, nodes, collections = _start(1, [_scenario(i) for i in range(9)], ["tests/test_a.py::test_a"])
    assert sched.shared_mode is True  # one worker: its share is everything
    _drive(sched, collections)
    assert sched.tests_finished and sorted(nodes[0].ran) == sorted(collections[nodes[0]])


def test_a_crashed_workers_share_goes_to_its_replacement_which_runs_what_was_left():
    scenarios = [_scenario(i) for i in range(40)]
    sched, plan, nodes, collections = _start(2, scenarios, [])
    crashing = nodes[1]
    for _ in range(3):
        assert crashing.step(sched, collections[crashing])
    running = crashing.queue[0]  # the test it dies on
    plan.release(crashing)
    assert sched.remove_node(crashing) == collections[crashing][running]
    _drive(sched, collections)  # the other worker finishes its own share and no more
    assert not sched.tests_finished and nodes[0].down
    replacement = Worker("gw2")
    plan.assign(replacement)
    assert replacement.workerinput[SHARE_KEY] == crashing.workerinput[SHARE_KEY]
    collections[replacement] = collections[crashing]  # the same share collects the same files
    sched.add_node(replacement)
    sched.add_node_collection(replacement, collections[replacement])
    sched.schedule()
    _drive(sched, collections)
    assert sched.tests_finished
    crashed = collections[crashing][running]
    assert sorted([*nodes[0].ran, *crashing.ran, crashed, *replacement.ran]) == sorted(scenarios)
    assert crashed not in replacement.ran and not set(crashing.ran) & set(replacement.ran)


def test_a_test_marked_pending_again_runs_again_in_its_share():
    sched, _, nodes, collections = _start(2, [_scenario(i) for i in range(10)], ["tests/test_a.py::test_a"])
    _drive(sched, collections)
    assert sched.tests_finished
    again = next(test for test in nodes[1].ran if test.startswith("scenarios/"))
    nodes[0].down = nodes[1].down = False  # as nodes still running would take it
    sched.mark_test_pending(again)
    assert nodes[1].queue == [collections[nodes[1]].index(again)] and nodes[0].queue == []  # its share's worker takes it
    assert nodes[1].down  # and nothing else is left for it
    _drive(sched, collections)
    assert nodes[1].ran.count(again) == 2 and again not in nodes[0].ran



def test_collections_that_differ_in_other_tests_go_to_xdists_own_check():
    """Shares differ only in scenario files: workers that collected different tests of another kind
    are left to xdist's load scheduling, which reports the difference and runs nothing."""
    config = Config(2)
    sched = ShareScheduling(config)
    plan = SharePlan(2)
    nodes = [Worker("gw0"), Worker("gw1")]
    for node, tests in zip(nodes, (["t.py::test_gw0", _scenario(0)], ["t.py::test_gw1"]), strict=True):
        plan.assign(node)
        sched.add_node(node)
        sched.add_node_collection(node, tests)
    sched.schedule()
    assert sched.shared_mode is True and not any(node.queue for node in nodes)
    assert len(config.reports) == 1 and "test_gw0" in str(config.reports[0].longrepr)
