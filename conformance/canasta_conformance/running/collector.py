"""Collecting scenario results from pytest's reports, where every report arrives.

:class:`ResultCollector` listens to ``pytest_runtest_logreport`` in the process that owns the
terminal: the only process of a serial run, the controller of an xdist run. A scenario item records
its result as one user property, :data:`RESULT_PROPERTY`, holding a
:class:`~.report.ReportEntry`'s JSON (plain data, so it crosses xdist's transport); the collector
reads it back, adds what only pytest knows (a known failure that failed or passed), and at the end
of the session writes the JSON report, the Markdown matrix and the known-failures file the options
ask for. For JUnit XML, whose properties are text, the teardown report that the JUnit writer reads
gets the entry's fields as one property each. xdist workers send their engine's capabilities back
through ``workeroutput``.
"""

from __future__ import annotations

import json
import marshal
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..contract.locations import SCENARIO_SUFFIXES

# the report module loads with the first scenario result: the plugin registers this collector in
# every pytest run, scenarios or not
if TYPE_CHECKING:
    from .report import ReportEntry

#: the user property a scenario's result travels in (its value: ``ReportEntry.to_json()``)
RESULT_PROPERTY = "canasta_result"
WORKER_ENGINE_KEY = "canasta_engine"
XPASS_MESSAGE = "a known failure passed: remove it from the known-failures file"


def recorded_result(report: Any) -> Mapping[str, Any] | None:
    """The result a scenario item recorded on this report, as JSON data (None for other tests)."""
    for name, value in getattr(report, "user_properties", ()):
        if name == RESULT_PROPERTY and isinstance(value, Mapping):
            return value
    return None


def entry_from_test_report(report: Any) -> ReportEntry | None:
    """The scenario result a pytest report stands for (None for other tests and other phases)."""
    if not isinstance(report, pytest.TestReport):
        return None
    data = recorded_result(report)
    if data is None or (report.when != "call" and not (report.when == "setup" and data.get("status") == "error")):
        return None
    from .report import ReportEntry

    entry = ReportEntry.from_json(data)
    if report.skipped and getattr(report, "wasxfail", None) is not None:
        return replace(entry, status="xfail")
    if entry.known_failure is not None and report.failed and entry.status == "passed":
        return replace(entry, status="xpass", message=XPASS_MESSAGE)
    return entry


#: the key of a worker's serialized report holding the report's data, marshalled
PACKED_KEY = "canasta_marshal"
#: the ``workerinput`` key by which an xdist controller asks its workers to pack their reports: the
#: controller's marshal format version (a worker packs only for a controller that reads its format)
PACKING_KEY = "canasta_pack_reports"


def pack_report_data(data: dict[str, Any]) -> None:
    """Pack a serialized test report (``pytest_report_to_serializable``'s data) for the trip from an
    xdist worker to the controller, in place: the data becomes one ``marshal`` blob. execnet encodes
    a report's dicts, tuples and strings item by item in Python, about ten times the cost of one
    blob (benchmarks/README.md); marshal carries the plain types execnet does (tuples stay tuples)
    and refuses objects of classes of their own, in which case the data is sent as it is.
    :func:`unpack_report_data` restores it before the controller rebuilds the report."""
    try:
        blob = marshal.dumps(data)
    except ValueError:
        return
    kind = data.get("$report_type")
    data.clear()
    data["$report_type"] = kind
    data[PACKED_KEY] = blob


def unpack_report_data(data: dict[str, Any]) -> None:
    """Undo :func:`pack_report_data`, in place (data that was not packed is left as it is; the
    keys xdist added after packing are kept)."""
    blob = data.pop(PACKED_KEY, None)
    if isinstance(blob, bytes):
        data.update(marshal.loads(blob))


def junit_properties(entry: ReportEntry) -> list[tuple[str, str]]:
    """The entry's fields as JUnit XML properties (``canasta_status``, ``canasta_rules`` ...): text
    for people and CI pages, written once and never read back (lists of names joined by commas,
    lists of records as JSON)."""
    properties = []
    for key, value in entry.to_json().items():
        if value is None or value == [] or value == "":
            continue
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            text = ",".join(value) if key != "details" else "\n".join(value)
        elif isinstance(value, list | dict):
            text = json.dumps(value, ensure_ascii=False)
        else:
            text = str(value)
        properties.append((f"canasta_{key}", text))
    return properties


class ResultCollector:
    """Registered by the plugin in the process that reports (never in an xdist worker)."""

    def __init__(self, config: pytest.Config, header: Callable[[list[Mapping[str, Any]]], dict[str, Any]]) -> None:
        self.config = config
        self._header = header
        self.entries: dict[str, ReportEntry] = {}
        self.worker_engines: list[Mapping[str, Any]] = []
        self.started = datetime.now(UTC)
        self._clock = time.perf_counter()
        self.written: list[str] = []  # lines for the terminal summary
        # the JUnit writer is the only reader of a teardown report's properties (``--junitxml``)
        self._junit = bool(getattr(config.option, "xmlpath", None))

    @pytest.hookimpl(tryfirst=True)  # before the JUnit writer reads the teardown report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = entry_from_test_report(report)
        if entry is None and str(report.when) == "???" and report.failed:  # (xdist: the worker died running it)
            entry = self._crashed_entry(report)
        if entry is not None:
            self.entries[report.nodeid] = entry
        if self._junit and report.when == "teardown" and (data := recorded_result(report)) is not None:
            from .report import ReportEntry

            shown = self.entries.get(report.nodeid) or ReportEntry.from_json(data)
            others = [(name, value) for name, value in report.user_properties if name != RESULT_PROPERTY]
            report.user_properties = [*others, *junit_properties(shown)]

    def _crashed_entry(self, report: pytest.TestReport) -> ReportEntry | None:
        """The error of a scenario whose xdist worker died while running it (xdist reports the item
        failed, with no result of ours): counted with the scenario's rules and areas, read from its
        file (from the cache, as the worker read it), so that the summary and the report count it."""
        path_text, _, scenario_id = report.nodeid.rpartition("::")
        if not path_text.endswith(SCENARIO_SUFFIXES) or not scenario_id:
            return None
        from ..contract.spec import load_spec
        from .report import ReportEntry
        from .scenario_cache import load_scenario_cached

        rules: tuple[str, ...] = ()
        areas: tuple[str, ...] = ()
        try:
            scenario = load_scenario_cached(self.config.rootpath / path_text, load_spec())
            rules, areas = scenario.rules, scenario.rule_areas
        except Exception:  # noqa: BLE001 - the error is reported all the same, without its areas
            pass
        return ReportEntry(scenario_id, "error", rules, areas, message=str(report.longrepr), path=path_text)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        engine = getattr(node, "workeroutput", {}).get(WORKER_ENGINE_KEY)
        if engine:
            self.worker_engines.append(engine)

    def header(self) -> dict[str, Any]:
        header = self._header(self.worker_engines)
        finished = datetime.now(UTC)
        header.update(
            started=self.started.isoformat(timespec="seconds"), finished=finished.isoformat(timespec="seconds"),
            seconds=round(time.perf_counter() - self._clock, 3),
        )
        return header

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        entries = list(self.entries.values())
        report_path = self.config.getoption("canasta_report")
        matrix_path = self.config.getoption("canasta_matrix")
        known_path = self.config.getoption("canasta_write_known_failures")
        if not (report_path or matrix_path or known_path):
            return
        from .report import write_json_report, write_matrix

        header = self.header()
        if report_path:
            write_json_report(Path(report_path), header, entries)
            self.written.append(f"canasta: wrote the JSON report of {len(entries)} scenarios to {report_path}")
        if matrix_path:
            write_matrix(Path(matrix_path), header, entries)
            self.written.append(f"canasta: wrote the conformance matrix to {matrix_path}")
        if known_path:
            self._write_known_failures(Path(known_path), entries, header)

    def _write_known_failures(self, path: Path, entries: list[ReportEntry], header: Mapping[str, Any]) -> None:
        # YAML and JSON Schema load only when a run writes the file (the plugin registers this
        # collector in every pytest run)
        from .known_failures import KnownFailuresError, load_known_failures, updated_known_failures, write_known_failures

        try:
            existing = load_known_failures(path) if path.exists() else {}
        except KnownFailuresError as error:
            self.written.append(f"canasta: did not rewrite {path}, it does not load:\n{error}")
            return
        update = updated_known_failures(
            existing, {e.id: e.status for e in entries}, {e.id: e.headline for e in entries},
        )
        engine = header.get("engine") or {}
        write_known_failures(path, update.entries, f"{engine.get('name', 'the engine')} {engine.get('version', '')}".strip())
        self.written.append(
            f"canasta: wrote {len(update.entries)} known failures to {path} "
            f"({len(update.added)} new, {len(update.removed)} removed because they pass)"
        )
