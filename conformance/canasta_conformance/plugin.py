"""The pytest plugin: scenario files become test items run against an engine.

A YAML file is a scenario when its first line is the modeline naming ``scenario.schema.json``;
every other YAML file is left alone. ``pytest --canasta`` adds the installed scenario corpus.
"""

from __future__ import annotations

import shlex
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from .data import scenarios_dir, spec_dir
from .engine import DEFAULT_ENGINE, EngineLoadError
from .harness import EngineSession
from .runner import Result
from .scenario import Scenario, ScenarioError, is_scenario_file, load_scenario
from .spec import Spec, SpecError, load_spec
from .yamlio import YamlError, read_yaml

_SESSION_KEY = pytest.StashKey["CanastaState"]()
STATUS_PROPERTY = "canasta_status"


class CanastaState:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.engine_spec: str = config.getoption("canasta_engine") or config.getini("canasta_engine") or DEFAULT_ENGINE
        self._spec: Spec | None = None
        self._session: EngineSession | None = None
        self.results: list[tuple[str, tuple[str, ...], str]] = []  # (scenario, areas, status)

    @property
    def spec(self) -> Spec:
        if self._spec is None:
            self._spec = load_spec()
        return self._spec

    @property
    def session(self) -> EngineSession:
        if self._session is None:
            self._session = EngineSession.from_spec(self.engine_spec)
        return self._session

    def rerun_command(self, path: Path) -> str:
        parts = ["pytest", str(path)]
        if self.engine_spec != DEFAULT_ENGINE:
            parts += ["--canasta-engine", self.engine_spec]
        return shlex.join(parts)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("canasta", "Canasta conformance suite")
    group.addoption("--canasta", action="store_true", help="run the Canasta scenario corpus (installed with the package)")
    group.addoption(
        "--canasta-engine", metavar="MODULE:FACTORY", default=None,
        help=f"the engine under test: a zero-argument factory (default: {DEFAULT_ENGINE}, the reference engine)",
    )
    parser.addini("canasta_engine", "the engine under test (MODULE:FACTORY)", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_SESSION_KEY] = CanastaState(config)
    for area in _areas():
        config.addinivalue_line("markers", f"canasta_{area}: Canasta scenarios of rule area {area!r}")
    config.addinivalue_line("markers", "canasta: every Canasta scenario")
    if config.getoption("canasta"):
        corpus = str(scenarios_dir())
        if config.args_source == pytest.Config.ArgsSource.ARGS:
            config.args.append(corpus)
        else:
            config.args[:] = [corpus]


def _areas() -> list[str]:
    """Rule areas from spec.yaml alone (cheap: every pytest run with the plugin installed needs them)."""
    try:
        meta = read_yaml(spec_dir() / "spec.yaml").data
        return [area["id"] for area in meta["areas"]]
    except (OSError, YamlError, KeyError, TypeError):
        return []


def pytest_report_header(config: pytest.Config) -> list[str]:
    if not (config.getoption("canasta") or config.getoption("canasta_engine")):
        return []
    return [_header_line(config)]


def _header_line(config: pytest.Config) -> str:
    state: CanastaState = config.stash[_SESSION_KEY]
    try:
        caps = state.session.capabilities
        engine = f"{caps.name} {caps.version} ({state.engine_spec})"
    except Exception as error:  # noqa: BLE001
        engine = f"{state.engine_spec} (cannot start: {error})"
    try:
        spec = f"{state.spec.name} {state.spec.version}"
    except SpecError:
        spec = "BROKEN (run 'canasta validate')"
    return f"canasta: engine {engine}; spec {spec}"


def pytest_collection_finish(session: pytest.Session) -> None:
    """In quiet runs pytest hides the header: still say which engine and spec are tested."""
    config = session.config
    scenarios = sum(isinstance(item, ScenarioItem) for item in session.items)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if scenarios and reporter is not None and config.get_verbosity() < 0:
        reporter.write_line(f"{_header_line(config)}; {scenarios} scenarios")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if is_scenario_file(file_path):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    def collect(self) -> Any:
        state: CanastaState = self.config.stash[_SESSION_KEY]
        try:
            scenario = load_scenario(self.path, state.spec)
        except (ScenarioError, SpecError) as error:
            yield BrokenScenarioItem.from_parent(self, name=self.path.stem, problems=str(error))
            return
        item = ScenarioItem.from_parent(self, name=scenario.id, scenario=scenario)
        item.add_marker("canasta")
        for area in scenario.rule_areas:
            item.add_marker(f"canasta_{area}")
        item.extra_keyword_matches.update(scenario.rules)
        yield item


class ScenarioFailed(Exception):
    def __init__(self, result: Result) -> None:
        super().__init__(result.message)
        self.result = result


class BrokenScenarioItem(pytest.Item):
    """A scenario file that does not load: an error for this file only."""

    def __init__(self, *, problems: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problems = problems

    def setup(self) -> None:
        self.user_properties.append((STATUS_PROPERTY, "error"))
        pytest.fail(
            f"invalid scenario file:\n{self.problems}\n\ncheck it with: canasta validate {shlex.quote(str(self.path))}",
            pytrace=False,
        )

    def runtest(self) -> None:  # pragma: no cover - setup always fails
        pass

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario file {self.path.name}"


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: Scenario, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario

    def runtest(self) -> None:
        state: CanastaState = self.config.stash[_SESSION_KEY]
        areas = ",".join(self.scenario.rule_areas)
        self.user_properties.append(("canasta_areas", areas))
        try:
            result = state.session.run(self.scenario)
        except EngineLoadError as error:
            self.user_properties.append((STATUS_PROPERTY, "error"))
            raise pytest.UsageError(str(error)) from None
        self.user_properties.append((STATUS_PROPERTY, result.status))
        self.user_properties.append(("canasta_seconds", round(result.seconds, 6)))
        if result.status == "unsupported":
            pytest.skip(f"unsupported: {result.message}")
        if result.status != "passed":
            raise ScenarioFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if not isinstance(excinfo.value, ScenarioFailed):
            return super().repr_failure(excinfo)
        state: CanastaState = self.config.stash[_SESSION_KEY]
        result = excinfo.value.result
        kind = "engine error" if result.status == "error" else "scenario failed"
        lines = [
            f"{kind}: {self.scenario.id}: {self.scenario.title}",
            f"rules: {', '.join(self.scenario.rules)}",
            result.report(),
            "",
            f"rerun just this scenario: {state.rerun_command(self.path)}",
        ]
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario {self.scenario.id}"


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    by_area: dict[str, Counter[str]] = defaultdict(Counter)
    totals: Counter[str] = Counter()
    for reports in terminalreporter.stats.values():
        for report in reports:
            if not isinstance(report, pytest.TestReport):
                continue
            props = dict(report.user_properties)
            status = props.get(STATUS_PROPERTY)
            if status is None or (report.when != "call" and not (report.when == "setup" and status == "error")):
                continue
            totals[status] += 1
            for area in (props.get("canasta_areas") or "(file)").split(","):
                by_area[area][status] += 1
    if not totals:
        return
    columns = ("passed", "failed", "error", "unsupported")
    terminalreporter.section("Canasta conformance by rule area")
    terminalreporter.write_line(f"{'area':<12}" + "".join(f"{c:>13}" for c in columns))
    for area in sorted(by_area):
        counts = by_area[area]
        terminalreporter.write_line(f"{area:<12}" + "".join(f"{counts[c]:>13}" for c in columns))
    terminalreporter.write_line(
        f"{'scenarios':<12}" + "".join(f"{totals[c]:>13}" for c in columns)
        + "   (a scenario counts once in the total and once per area it touches)"
    )
