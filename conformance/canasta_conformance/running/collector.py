"""Collecting scenario results from pytest's reports, where every report arrives.

:class:`ResultCollector` listens to ``pytest_runtest_logreport`` in the process that owns the
terminal: the only process of a serial run, the controller of an xdist run (worker reports carry
the item's ``user_properties``, which the plugin fills). At the end of the session it writes the
JSON report, the Markdown matrix and the known-failures file the options ask for. xdist workers
send their engine's capabilities back through ``workeroutput``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

# the report module loads with the first scenario result: the plugin registers this collector in
# every pytest run, scenarios or not
if TYPE_CHECKING:
    from .report import ReportEntry

STATUS_PROPERTY = "canasta_status"
KNOWN_FAILURE_PROPERTY = "canasta_known_failure"
WORKER_ENGINE_KEY = "canasta_engine"


def entry_from_test_report(report: Any) -> ReportEntry | None:
    """The scenario result a pytest report stands for (None for other tests and other phases)."""
    if not isinstance(report, pytest.TestReport):
        return None
    props: dict[str, Any] = dict(report.user_properties)
    status = props.get(STATUS_PROPERTY)
    if status is None or (report.when != "call" and not (report.when == "setup" and status == "error")):
        return None
    known = props.get(KNOWN_FAILURE_PROPERTY)
    message = str(props.get("canasta_message", ""))
    if report.skipped and getattr(report, "wasxfail", None) is not None:
        status = "xfail"
    elif known is not None and report.failed and status == "passed":
        status = "xpass"
        message = "a known failure passed: remove it from the known-failures file"
    step = props.get("canasta_step")
    details = props.get("canasta_details") or ""
    from .report import ReportEntry

    return ReportEntry(
        id=str(props.get("canasta_id") or report.nodeid.rpartition("::")[2]),
        status=status,
        rules=_split(props.get("canasta_rules")),
        areas=_split(props.get("canasta_areas")),
        message=message,
        step=int(step) if step is not None else None,
        action=props.get("canasta_action"),
        seconds=float(props.get("canasta_seconds", report.duration)),
        path=report.location[0] if report.location else None,
        known_failure=known,
        details=tuple(str(details).splitlines()),
        tier=props.get("canasta_tier"),
        tier_reasons=tuple(_json_list(props.get("canasta_tier_reasons"))),
        tier_override=props.get("canasta_tier_override"),
        citations=tuple(_json_list(props.get("canasta_citations"))),
    )


def _json_list(value: Any) -> list[Any]:
    try:
        data = json.loads(value) if value else []
    except (TypeError, ValueError):
        return []
    return data if isinstance(data, list) else []


def _split(value: Any) -> tuple[str, ...]:
    return tuple(part for part in str(value or "").split(",") if part)


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

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = entry_from_test_report(report)
        if entry is not None:
            self.entries[report.nodeid] = entry

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
