"""The same run in-process and under pytest-xdist (``-n 2``): the same items, outcomes, failure
reports, JUnit XML, JSON report and known failures; and what the plugin changes in xdist's
transport (a worker's reports packed, a test's events sent as one message)."""

from __future__ import annotations

import copy
import json
import marshal
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from canasta_conformance.contract.paths import scenarios_dir
from canasta_conformance.pytest_plugin.xdist_transport import BATCH_EVENT, BATCHING_KEY, QUEUED_EVENT, HeldEvents, receive_batches
from canasta_conformance.running.collector import PACKED_KEY, pack_report_data, unpack_report_data
from example_scenario import EXAMPLE

TESTS = Path(__file__).resolve().parent
#: a few corpus scenarios of several areas (an engine that rejects everything fails them): area ->
#: the names to take the first four of (named, so that scenarios added to an area change nothing here)
CHOSEN = {"pile": "pile-black-three-*.yaml", "meld": "meld-b*.yaml", "black3": "black3-[bc]*.yaml"}


def test_packed_report_data_unpacks_to_exactly_what_was_packed():
    data: dict[str, Any] = {
        "$report_type": "TestReport", "nodeid": "scenarios/pile/a.yaml::a", "location": ("scenarios/pile/a.yaml", 0, "scenario a"),
        "keywords": {"a": 1, "canasta": 1}, "outcome": "failed", "longrepr": {"reprcrash": {"lineno": None, "message": "x"}},
        "sections": [("Captured stdout call", "text")], "duration": 0.25, "when": "call",
        "user_properties": [("canasta_result", {"id": "a", "rules": ["r.one"], "step": 2, "seconds": 0.001}), ("mine", b"\x00")],
    }
    original = copy.deepcopy(data)
    pack_report_data(data)
    assert set(data) == {"$report_type", PACKED_KEY} and isinstance(data[PACKED_KEY], bytes)
    data["item_index"] = 3  # xdist adds its keys after the plugin packed
    unpack_report_data(data)
    assert data == {**original, "item_index": 3}
    assert type(data["location"]) is tuple and type(data["user_properties"][0]) is tuple  # tuples stay tuples


def test_report_data_that_is_not_plain_is_sent_as_it_is():
    class Custom:
        pass

    data: dict[str, Any] = {"$report_type": "TestReport", "user_properties": [("mine", Custom())]}
    before = dict(data)
    pack_report_data(data)
    assert data == before  # execnet then says what it cannot carry, as without the plugin
    unpack_report_data(data)
    assert data == before


def _corpus(folder: Path) -> list[str]:
    ids = []
    for area, names in CHOSEN.items():
        for path in sorted((scenarios_dir() / area).glob(names))[:4]:
            target = folder / "scenarios" / area / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
            ids.append(path.stem)
    for sid in ("only-a-rejection-one", "only-a-rejection-two"):  # passed by an engine that rejects everything
        (folder / "scenarios" / "pile" / f"{sid}.yaml").write_text(EXAMPLE.format(id=sid))
        ids.append(sid)
    return ids


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "scenarios", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest", *args],
        cwd=folder, capture_output=True, text=True, env=env, timeout=600,
    )


def _junit(path: Path) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """test case -> (outcome, its properties but the time taken)"""
    cases = {}
    for case in ET.parse(path).iter("testcase"):
        outcome = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        properties = sorted((p.get("name", ""), p.get("value", "")) for p in case.iter("property") if p.get("name") != "canasta_seconds")
        cases[f"{case.get('classname')}::{case.get('name')}"] = (outcome, properties)
    return cases


def _results(path: Path) -> list[dict[str, Any]]:
    return sorted(({**entry, "seconds": 0} for entry in json.loads(path.read_text())["results"]), key=lambda e: e["id"])


def test_a_run_under_xdist_reports_what_the_same_run_reports_in_process(tmp_path):
    engine = "fake_engines:RejectEverything"  # some scenarios pass, some fail, the listed one is an expected failure
    ids = _corpus(tmp_path)
    known = tmp_path / "known.yaml"
    known.write_text(f"{ids[0]}: listed to see it reported as an expected failure\n")
    runs = {}
    for mode in ("0", "2"):
        junit, report = tmp_path / f"junit-{mode}.xml", tmp_path / f"report-{mode}.json"
        runs[mode] = _run(
            tmp_path, "-n", mode, "--canasta-engine", engine, "--canasta-known-failures", str(known),
            f"--junitxml={junit}", "--canasta-report", str(report), "-rfE",
        )
        assert "Traceback" not in runs[mode].stdout + runs[mode].stderr
    assert runs["0"].returncode == runs["2"].returncode
    assert _junit(tmp_path / "junit-0.xml") == _junit(tmp_path / "junit-2.xml")
    assert len(_junit(tmp_path / "junit-2.xml")) == len(ids)
    assert _results(tmp_path / "report-0.json") == _results(tmp_path / "report-2.json")
    summary = [line for line in runs["2"].stdout.splitlines() if " in " in line and ("passed" in line or "failed" in line)]
    assert summary and summary[-1].split(" in ")[0] == runs["0"].stdout.splitlines()[-1].split(" in ")[0]
    area_table = runs["0"].stdout.split("Canasta conformance by rule area")[1].split("\n=")[0]
    assert area_table in runs["2"].stdout
    outcomes = [outcome for outcome, _ in _junit(tmp_path / "junit-2.xml").values()]
    assert "passed" in outcomes and "failure" in outcomes and "skipped" in outcomes  # skipped: the expected failure
    for run in runs.values():  # a readable failure report, the same in both modes
        assert run.returncode == pytest.ExitCode.TESTS_FAILED
        assert "rerun just this scenario: " in run.stdout
        assert any(line.startswith("step 1 (") and "turn.nothing-is-allowed" in line for line in run.stdout.splitlines())


def test_k_and_x_select_and_stop_under_xdist(tmp_path):
    ids = _corpus(tmp_path)
    run = _run(tmp_path, "-n", "2", "-v", "-k", "pile-black-three or only-a-rejection", "-x", "--canasta-engine", "fake_engines:RejectEverything")
    assert run.returncode != 0 and "stopping after 1 failures" in run.stdout + run.stderr
    shown = [line for line in run.stdout.splitlines() if " PASSED " in line or " FAILED " in line]
    assert shown and all("::pile-black-three" in line or "::only-a-rejection-" in line for line in shown)
    failed = [line for line in shown if " FAILED " in line]
    assert 1 <= len(failed) <= 2 < len([i for i in ids if i.startswith("pile-black-three")])  # each worker stops at its first failure


def test_a_worker_holds_a_tests_events_and_sends_them_with_its_end_as_one_message():
    sent: list[tuple[str, dict[str, Any]]] = []
    send = HeldEvents(lambda name, **kwargs: sent.append((name, kwargs)))
    send("workerready", workerinfo={"a": 1})  # not a test's event: sent at once
    send("logstart", nodeid="a.yaml::a", location=("a.yaml", 0, "scenario a"))
    send("testreport", data={"when": "setup", "outcome": "passed"})
    assert [name for name, _ in sent] == ["workerready"]  # held while the test runs
    send("testreport", data={"when": "call", "outcome": "failed"})
    send("logfinish", nodeid="a.yaml::a", location=("a.yaml", 0, "scenario a"))
    send("runtest_protocol_complete", item_index=0, duration=0.5)
    assert [name for name, _ in sent] == ["workerready", BATCH_EVENT]
    send("logstart", nodeid="b.yaml::b", location=("b.yaml", 0, "scenario b"))
    send("logwarning", message="careful", code="W1", nodeid="b.yaml::b")  # sends what is held first
    assert [name for name, _ in sent][2:] == [BATCH_EVENT, "logwarning"]

    class Node:  # what the controller's side of xdist gives: one event at a time
        def __init__(self) -> None:
            self.workerinput: dict[str, Any] = {}
            self.received: list[Any] = []

        def process_from_remote(self, eventcall: Any) -> None:
            self.received.append(eventcall)

    node = Node()
    receive_batches(node)
    assert node.workerinput[BATCHING_KEY] == marshal.version
    for name, kwargs in sent:
        node.process_from_remote((name, kwargs))
    assert [event[0] for event in node.received] == [
        "workerready", "logstart", "testreport", "testreport", "logfinish", "runtest_protocol_complete", "logstart", "logwarning",
    ]
    assert node.received[1] == ("logstart", {"nodeid": "a.yaml::a", "location": ("a.yaml", 0, "scenario a")})
    assert node.received[3] == ("testreport", {"data": {"when": "call", "outcome": "failed"}})


def test_a_batchs_events_cross_to_the_controllers_main_thread_as_one_queued_event_handled_in_order():
    class DSession:  # xdist's controller: loop_once hands each queued event to worker_<name>
        def __init__(self) -> None:
            self.handled: list[tuple[str, Any]] = []

        def loop_once(self) -> None:
            name, kwargs = queue.pop(0)
            getattr(self, f"worker_{name}")(**kwargs)

        def worker_testreport(self, node: Any, rep: Any) -> None:
            self.handled.append(("testreport", rep))

        def worker_logstart(self, node: Any, nodeid: str, location: Any) -> None:
            self.handled.append(("logstart", nodeid))

        def worker_runtest_protocol_complete(self, node: Any, item_index: int, duration: float) -> None:
            self.handled.append(("complete", item_index))

        def worker_workerready(self, node: Any, workerinfo: Any) -> None:
            self.handled.append(("workerready", workerinfo))

    queue: list[tuple[str, dict[str, Any]]] = []

    class Node:  # xdist's WorkerController: its receiver puts each event on the controller's queue
        def __init__(self) -> None:
            self.workerinput: dict[str, Any] = {}
            self.putevent = queue.append

        def process_from_remote(self, eventcall: Any) -> None:
            name, kwargs = eventcall
            self.putevent((name, {**kwargs, "node": self}))

    dsession, node = DSession(), Node()
    receive_batches(node, dsession)
    sent: list[tuple[str, dict[str, Any]]] = []
    send = HeldEvents(lambda name, **kwargs: sent.append((name, kwargs)))
    send("workerready", workerinfo={"a": 1})
    for index, sid in enumerate(("a", "b")):
        send("logstart", nodeid=f"{sid}.yaml::{sid}", location=(f"{sid}.yaml", 0, sid))
        send("testreport", rep=f"{sid}-call")
        send("runtest_protocol_complete", item_index=index, duration=0.1)
    for name, kwargs in sent:
        node.process_from_remote((name, kwargs))
    assert [name for name, _ in queue] == ["workerready", QUEUED_EVENT, QUEUED_EVENT]  # a test's events: one hand-over
    assert node.putevent == queue.append  # the receiver's own queue again after each batch
    while queue:
        dsession.loop_once()
    assert dsession.handled == [
        ("workerready", {"a": 1}), ("logstart", "a.yaml::a"), ("testreport", "a-call"), ("complete", 0),
        ("logstart", "b.yaml::b"), ("testreport", "b-call"), ("complete", 1),
    ]


def test_no_batching_is_asked_of_a_worker_whose_channel_is_already_open():
    # an xdist that opened the channel (and bound its callback) before the hook would never call
    # the replacement: the worker must then send its events as xdist expects them
    class Node:
        def __init__(self) -> None:
            self.workerinput: dict[str, Any] = {}
            self.channel = object()

        def process_from_remote(self, eventcall: Any) -> None:
            pass

    node = Node()
    original = node.process_from_remote
    receive_batches(node)
    assert BATCHING_KEY not in node.workerinput
    assert node.process_from_remote == original


def test_events_that_are_not_plain_data_are_sent_one_by_one():
    sent: list[str] = []
    send = HeldEvents(lambda name, **kwargs: sent.append(name))
    send("logstart", nodeid="a", location=("a", 0, "a"))
    send("testreport", data={"odd": object()})
    send("runtest_protocol_complete", item_index=0, duration=0.1)
    assert sent == ["logstart", "testreport", "runtest_protocol_complete"]


_RECORDING_CONFTEST = '''
import json, os
from pathlib import Path

from canasta_conformance.running.scenario_cache import Loaded

UNPICKLED, RAN = [], []
_scenario = Loaded.scenario


def _recorded(self):
    UNPICKLED.append(self.id)
    return _scenario(self)


Loaded.scenario = _recorded


def pytest_runtest_logreport(report):
    if report.when == "call":
        RAN.append(report.nodeid.split("::")[-1])


KEPT = []


import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item):
    result = yield
    if "scenario" in item.__dict__:
        KEPT.append(item.name)
    return result


def pytest_sessionfinish(session):
    worker = getattr(session.config, "workerinput", {"workerid": "main"})
    terminal = session.config.pluginmanager.get_plugin("terminalreporter") is not None
    collected = sorted(item.nodeid.split("::")[-1] for item in session.items)
    record = {"unpickled": sorted(UNPICKLED), "ran": sorted(RAN), "terminal": terminal, "kept": KEPT, "collected": collected}
    (Path(os.environ["RECORD_DIR"]) / (worker["workerid"] + ".json")).write_text(json.dumps(record))
'''


def test_a_worker_collects_and_unpickles_only_its_share_and_keeps_no_terminal_when_it_runs_only_scenarios(tmp_path, monkeypatch):
    """Under ``-n 2`` each worker collects its share of the scenario files (xdist_shares), from
    the cache entry's id, rules, areas and tier, and runs all of it; the scenario itself is
    unpickled only when it runs, and let go once it has run. Tests of another kind every worker
    collects, and one of them runs each. A worker whose run is only scenarios drops pytest's
    terminal reporter (its output goes nowhere); one running other tests keeps it."""
    ids = _corpus(tmp_path)
    (tmp_path / "conftest.py").write_text(_RECORDING_CONFTEST)
    records = tmp_path / "records"
    records.mkdir()
    monkeypatch.setenv("CANASTA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RECORD_DIR", str(records))
    assert _run(tmp_path, "-n", "0").returncode == 0  # fills the cache
    in_process = json.loads((records / "main.json").read_text())
    assert in_process["ran"] == sorted(ids) == in_process["collected"] and in_process["terminal"] is True
    assert in_process["kept"] == []  # each scenario let go once its item has run
    run = _run(tmp_path, "-n", "2")
    assert run.returncode == 0 and f"2 workers [{len(ids)} items]" in run.stdout  # the run's count, not a share's
    workers = [json.loads(path.read_text()) for path in sorted(records.glob("gw*.json"))]
    assert len(workers) == 2
    assert sorted(sid for worker in workers for sid in worker["collected"]) == sorted(ids)  # each scenario in one share
    assert abs(len(workers[0]["collected"]) - len(workers[1]["collected"])) <= 1
    for worker in workers:
        assert worker["collected"] == worker["ran"] == worker["unpickled"]
        assert worker["terminal"] is False and worker["kept"] == []
    files = sorted(str(path.relative_to(tmp_path)) for path in (tmp_path / "scenarios").rglob("*.yaml"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-n", "2", *files], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=600)  # files named one by one (several in a folder, walked once for each)
    assert run.returncode == 0 and f"{len(ids)} passed" in run.stdout, run.stdout + run.stderr
    workers = [json.loads(path.read_text()) for path in sorted(records.glob("gw*.json"))]
    assert all(worker["collected"] == sorted(ids) for worker in workers)  # named: pytest must find each in every worker
    assert sorted(sid for worker in workers for sid in worker["ran"]) == sorted(ids)  # and one runs it
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-n", "2", "scenarios", files[0], files[-1]], cwd=tmp_path,
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0 and f"{len(ids)} passed" in run.stdout, run.stdout + run.stderr
    workers = [json.loads(path.read_text()) for path in sorted(records.glob("gw*.json"))]
    named = sorted(Path(name).stem for name in (files[0], files[-1]))
    assert sorted(sid for worker in workers for sid in worker["collected"] if sid not in named) == sorted(set(ids) - set(named))
    assert sorted(sid for worker in workers for sid in worker["ran"]) == sorted(ids)
    (tmp_path / "scenarios" / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    run = _run(tmp_path, "-n", "2")
    assert run.returncode == 0 and f"{len(ids) + 1} passed" in run.stdout
    workers = [json.loads(path.read_text()) for path in sorted(records.glob("gw*.json"))]
    assert all(worker["terminal"] is True and "test_plain" in worker["collected"] for worker in workers)
    assert sorted(sid for worker in workers for sid in worker["ran"]) == sorted([*ids, "test_plain"])  # each test once
    assert sorted(sid for worker in workers for sid in worker["collected"] if sid != "test_plain") == sorted(ids)


def test_other_dist_modes_collect_everything_in_every_worker(tmp_path, monkeypatch):
    """Shares are only for ``--dist load`` (the default of ``-n``): xdist's other schedulers need
    every worker to collect the whole run, and get it."""
    ids = _corpus(tmp_path)
    (tmp_path / "conftest.py").write_text(_RECORDING_CONFTEST)
    records = tmp_path / "records"
    records.mkdir()
    monkeypatch.setenv("RECORD_DIR", str(records))
    run = _run(tmp_path, "-n", "2", "--dist", "loadfile")
    assert run.returncode == 0 and f"{len(ids)} passed" in run.stdout
    workers = [json.loads(path.read_text()) for path in sorted(records.glob("gw*.json"))]
    assert len(workers) == 2 and all(worker["collected"] == sorted(ids) for worker in workers)
    assert sorted(sid for worker in workers for sid in worker["ran"]) == sorted(ids)


CRASHING_ENGINE = '''
import os
from pathlib import Path
from canasta_reference.engine import ReferenceEngine

class CrashOnce(ReferenceEngine):
    """Ends its worker's process at the first position it is given, once in the whole run."""
    def load(self, position):
        try:  # created by exactly one process of the run (two workers may load at the same moment)
            os.close(os.open(Path(__file__).with_name("crashed"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return super().load(position)
        os._exit(3)
'''


def test_a_scenario_whose_worker_dies_is_an_error_in_the_summary_and_the_report(tmp_path):
    ids = _corpus(tmp_path)
    (tmp_path / "crash_engine.py").write_text(CRASHING_ENGINE)
    report = tmp_path / "report.json"
    run = _run(tmp_path, "-n", "2", "--canasta-engine", "crash_engine:CrashOnce", "--canasta-report", str(report))
    assert "crashed while running" in run.stdout
    results = json.loads(report.read_text())["results"]
    assert len(results) == len(ids)  # the scenario the worker died on is not lost
    errors = [entry for entry in results if entry["status"] == "error"]
    assert len(errors) == 1 and "crashed while running" in errors[0]["message"] and errors[0]["areas"]
    totals = next(line for line in run.stdout.splitlines() if line.startswith("scenarios "))
    assert totals.split()[1:4] == [str(len(ids) - 1), "0", "1"]  # passed, failed, error


def _pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in ``folder`` with its cache (for --lf and --sw) and the tests' helpers importable."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:hypothesispytest", *args], cwd=folder,
                          capture_output=True, text=True, env=env, timeout=600)


def test_last_failed_and_stepwise_runs_see_the_whole_run_in_every_worker(tmp_path):
    """--lf and --sw compare what a worker collected with what the last run left in the cache: a
    share would be taken for a changed run, and pytest would run all of it."""
    ids = _corpus(tmp_path)
    (tmp_path / "scenarios" / "meld" / "m-broken.yaml").write_text("id: m-broken\n")  # one error, in one share
    first = _pytest(tmp_path, "scenarios", "-n", "2")
    assert first.returncode == 1 and f"{len(ids)} passed, 1 error" in first.stdout
    again = _pytest(tmp_path, "scenarios", "-n", "2", "--lf").stdout.splitlines()[-1]
    assert "1 error" in again and "passed" not in again, again
    assert "1 error" in _pytest(tmp_path, "scenarios", "-n", "0", "--sw").stdout.splitlines()[-1]
    resumed = _pytest(tmp_path, "scenarios", "-n", "2", "--sw").stdout.splitlines()[-1]
    ran = sum(int(count) for count, _ in re.findall(r"(\d+) (passed|failed|error)", resumed))
    assert "1 error" in resumed and ran < len(ids) // 2, resumed  # from the last failure on, not the whole run


def test_workers_that_collect_other_tests_are_still_reported_as_xdist_reports_them(tmp_path):
    (tmp_path / "test_differ.py").write_text(
        "import os, pytest\n\n@pytest.mark.parametrize('n', [os.environ.get('PYTEST_XDIST_WORKER', 'x')])\n"
        "def test_n(n):\n    assert n\n"
    )
    run = _pytest(tmp_path, "test_differ.py", "-n", "2", "-p", "no:cacheprovider")
    assert run.returncode != 0 and "Different tests were collected" in run.stdout + run.stderr


def test_a_scheduler_of_the_users_own_is_kept(tmp_path):
    _corpus(tmp_path)
    (tmp_path / "conftest.py").write_text(
        "from xdist.scheduler import LoadScopeScheduling\n\n"
        "def pytest_xdist_make_scheduler(config, log):\n    return LoadScopeScheduling(config, log)\n"
    )
    run = _pytest(tmp_path, "scenarios", "-n", "2", "-v", "-p", "no:cacheprovider")
    assert run.returncode == 0 and "scheduling tests via LoadScopeScheduling" in run.stdout


def test_an_engine_that_cannot_be_imported_stops_an_xdist_run_once_with_its_reason(tmp_path):
    _corpus(tmp_path)
    run = _pytest(tmp_path, "scenarios", "-n", "2", "-p", "no:cacheprovider", "--canasta-engine", "no_such_module:create")
    assert run.returncode == pytest.ExitCode.USAGE_ERROR and "INTERNALERROR" not in run.stdout + run.stderr
    assert "--canasta-engine: " in run.stdout + run.stderr and "no_such_module" in run.stdout + run.stderr
