"""The pytest plugin: scenario files become test items run against an engine.

A YAML file is a scenario when it is in a folder named ``scenarios`` (or below one), named on the
command line, or under a folder given with ``--canasta-scenarios``; every other YAML file is left alone. ``pytest --canasta`` adds the installed scenario corpus.
"""

from __future__ import annotations

import atexit
import gc
import os
import shlex
import shutil
import sys
import time
from functools import cache, cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..contract.defaults import DEFAULT_ENGINE, DEFAULT_TIMEOUT, MAX_CONSECUTIVE_FAULTS, TIERS
from ..contract.errors import CanastaError
from ..contract.locations import SCENARIO_SUFFIXES, is_scenario_file
from ..contract.paths import scenarios_dir, spec_dir
from ..running.collector import PACKING_KEY, RESULT_PROPERTY, WORKER_ENGINE_KEY, ResultCollector, pack_report_data, unpack_report_data
from .xdist_shares import SharePlan, ShareScheduling, show_total, take_share

# Everything else is imported where it is first needed: pytest loads this module in every run of an
# environment where the package is installed, scenario files or not, so importing it must be cheap
# (no YAML, no JSON Schema, no engine; benchmarks/README.md has the figure).
if TYPE_CHECKING:
    from ..contract.engine_protocol import Capabilities
    from ..contract.scenario import Scenario
    from ..contract.spec import Spec, SpecError
    from ..running.harness import EngineSession
    from ..running.runner import Judging, Result
    from ..running.scenario_cache import Loaded

_SESSION_KEY = pytest.StashKey["CanastaState"]()
#: rule-differs scenarios listed by name in the terminal summary
SHOWN_RULE_DIFFERS = 20
_COLLECTOR_KEY = pytest.StashKey[ResultCollector]()


class CanastaState:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.engine_spec: str = config.getoption("canasta_engine") or config.getini("canasta_engine") or DEFAULT_ENGINE
        self.engine_cmd: str | None = config.getoption("canasta_engine_cmd") or config.getini("canasta_engine_cmd") or None
        if self.engine_cmd and config.getoption("canasta_engine"):
            raise pytest.UsageError("give the engine under test as --canasta-engine (Python) or --canasta-engine-cmd (a program), not both")
        self.timeout: float = config.getoption("canasta_timeout")
        self.run_timeout: float | None = config.getoption("canasta_run_timeout")
        self.deadline = None if self.run_timeout is None else time.monotonic() + self.run_timeout
        self.max_engine_faults: int = config.getoption("canasta_max_engine_faults")
        self.check_protocol: bool = config.getoption("canasta_check_protocol")
        self.strict_rules: bool = config.getoption("canasta_strict_rules")
        self.tier: str | None = config.getoption("canasta_tier")
        self.known_failures_file: str | None = config.getoption("canasta_known_failures")
        self.known_failures: dict[str, str] = {}
        if self.known_failures_file:
            from ..running.known_failures import KnownFailuresError, load_known_failures

            try:
                self.known_failures = load_known_failures(Path(self.known_failures_file))
            except KnownFailuresError as error:
                raise pytest.UsageError(f"--canasta-known-failures: the file does not load:\n{error}") from None
        self.scenario_roots = _named_scenario_roots(config)
        self._spec: Spec | None = None
        self._spec_error: SpecError | None = None
        self._session: EngineSession | None = None
        self._header_capabilities: Capabilities | None = None

    def is_named_scenario(self, path: Path) -> bool:
        """A YAML file named on the command line, or under a folder given as ``--canasta-scenarios``."""
        if path.suffix not in SCENARIO_SUFFIXES:
            return False
        return any(path == root or root in path.parents for root in self.scenario_roots)

    @property
    def spec(self) -> Spec:
        from ..contract.spec import SpecError, load_spec

        if self._spec_error is not None:
            raise self._spec_error  # read once: a broken spec is not read again for every scenario file
        if self._spec is None:
            try:
                self._spec = load_spec()
            except SpecError as error:
                self._spec_error = error
                raise
        return self._spec

    @property
    def judging(self) -> Judging:
        from ..running.runner import Judging

        return Judging(strict_rules=self.strict_rules)

    def spec_or_none(self) -> Spec | None:
        from ..contract.spec import SpecError

        try:
            return self.spec
        except SpecError:
            return None

    @property
    def engine_label(self) -> str:
        return self.engine_cmd or self.engine_spec

    @property
    def session(self) -> EngineSession:
        if self._session is None:
            from ..running.harness import EngineSession

            if self.engine_cmd:
                from ..transports.subprocess_engine import SubprocessEngine

                factory = partial(
                    SubprocessEngine, self.engine_cmd, timeout=self.timeout, check_protocol=self.check_protocol,
                    deadline=self.deadline,
                )
                self._session = EngineSession(factory, self.engine_cmd, self.judging)
            else:
                self._session = EngineSession.from_spec(self.engine_spec, self.judging)
            self._session.max_consecutive_faults = self.max_engine_faults
            self._session.deadline = self.deadline
        return self._session

    def known_capabilities(self) -> Capabilities | None:
        """The engine's capabilities if this process has started it (never starts it)."""
        session = self._session
        if self._header_capabilities is not None:
            return self._header_capabilities
        if session is None or not session.started:
            return None
        try:
            return session.capabilities
        except Exception:  # noqa: BLE001
            return None

    def close(self) -> None:
        if self._session is not None:
            self._session.close()

    def report_header(self, worker_engines: list[Any]) -> dict[str, Any]:
        """The header of the JSON report and the matrix: engine, spec, protocol and options."""
        from .. import __version__
        from ..contract.spec import SpecError
        from ..transports.protocol import PROTOCOL_VERSION

        caps = self.known_capabilities()
        engine: dict[str, Any] = dict(caps.to_json() if caps else (worker_engines[0] if worker_engines else {}))
        engine.update(command=self.engine_cmd, factory=None if self.engine_cmd else self.engine_spec)
        try:
            spec: dict[str, Any] = {"name": self.spec.name, "version": self.spec.version}
        except SpecError:
            spec = {"name": None, "version": None}
        return {
            "engine": engine, "spec": spec, "protocol": PROTOCOL_VERSION if self.engine_cmd else None,
            "harness": {"name": "canasta-rules", "version": __version__},
            "options": {
                "timeout": self.timeout if self.engine_cmd else None, "check_protocol": self.check_protocol,
                "known_failures": self.known_failures_file, "strict_rules": self.strict_rules, "tier": self.tier,
            },
        }

    def rerun_command(self, path: Path) -> str:
        """A command that reruns one scenario as this run did, from the directory the run started
        in: the same engine and options, the import path the engine needed, pytest of this Python."""
        parts = [*_pytest_command(), _shown_path(path, self.config.invocation_params.dir)]
        if self.engine_cmd:
            parts += ["--canasta-engine-cmd", self.engine_cmd]
            if self.timeout != DEFAULT_TIMEOUT:
                parts += ["--canasta-timeout", f"{self.timeout:g}"]
            if self.check_protocol:
                parts.append("--canasta-check-protocol")
        elif self.engine_spec != DEFAULT_ENGINE:
            parts += ["--canasta-engine", self.engine_spec]
        if self.known_failures_file:
            parts += ["--canasta-known-failures", self.known_failures_file]
        if self.strict_rules:
            parts.append("--canasta-strict-rules")
        import_path = os.environ.get("PYTHONPATH")
        return (f"PYTHONPATH={shlex.quote(import_path)} " if import_path else "") + shlex.join(parts)


def _pytest_command() -> list[str]:
    """``pytest`` when the one on PATH runs in this Python's environment, else ``python -m pytest``."""
    return list(_pytest_command_on(os.environ.get("PATH")))


@cache
def _pytest_command_on(search_path: str | None) -> tuple[str, ...]:
    """:func:`_pytest_command` for one PATH, looked up once (a failing engine's run shows a rerun
    command for every failure)."""
    found = shutil.which("pytest", path=search_path)
    if found and Path(found).parent == Path(sys.executable).parent:
        return ("pytest",)
    return (sys.executable, "-m", "pytest")


def _shown_path(path: Path, start: Path) -> str:
    """``path`` relative to the directory the run started in when it lies below it, else absolute."""
    absolute = path.resolve()
    try:
        return str(absolute.relative_to(start.resolve()))
    except ValueError:
        return str(absolute)


def _named_scenario_roots(config: pytest.Config) -> list[Path]:
    here = config.invocation_params.dir
    roots = [scenarios_dir().resolve(), *((here / p).resolve() for p in config.getoption("canasta_scenarios") or ())]
    for arg in config.args:
        path = (here / arg.split("::")[0]).resolve()
        if path.suffix in SCENARIO_SUFFIXES and path.is_file():
            roots.append(path)
    return roots


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise ValueError(text)
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("canasta", "Canasta conformance suite")
    group.addoption("--canasta", action="store_true", help="run the Canasta scenario corpus (installed with the package)")
    group.addoption(
        "--canasta-scenarios", metavar="PATH", action="append", default=[],
        help="every YAML file under PATH is a scenario (repeatable; by default a scenario is a YAML file in a "
        "folder named 'scenarios', or a YAML file named on the command line)",
    )
    group.addoption(
        "--canasta-engine", metavar="NAME|MODULE:FACTORY", default=None,
        help=f"the engine under test: the name of an installed engine (entry-point group canasta.engines) or a "
        f"zero-argument factory (default: {DEFAULT_ENGINE}, the reference engine)",
    )
    group.addoption(
        "--canasta-engine-cmd", metavar="COMMAND", default=None,
        help="the engine under test: a program speaking the JSON-lines protocol on stdin/stdout "
        "(one process per xdist worker, restarted after an error; see docs/protocol.md)",
    )
    group.addoption(
        "--canasta-timeout", metavar="SECONDS", type=float, default=DEFAULT_TIMEOUT,
        help=f"how long an engine program may take to answer one request (default: {DEFAULT_TIMEOUT:g})",
    )
    group.addoption(
        "--canasta-run-timeout", metavar="SECONDS", type=_seconds, default=None,
        help="a time budget for the whole run: once spent, the engine program is stopped and every scenario "
        "not yet run is reported as an error (default: none)",
    )
    group.addoption(
        "--canasta-max-engine-faults", metavar="N", type=_count, default=MAX_CONSECUTIVE_FAULTS,
        help="after N scenarios in a row lose the engine program (a timeout, a crash, garbage), report the "
        f"remaining scenarios as errors at once (default {MAX_CONSECUTIVE_FAULTS}; 0: never)",
    )
    group.addoption(
        "--canasta-allow-no-run", action="store_true",
        help="do not fail a run in which no scenario was executed (e.g. an engine that supports none of them)",
    )
    group.addoption(
        "--canasta-check-protocol", action="store_true",
        help="validate every message to and from the engine program against spec/schema/protocol.schema.json; "
        "a violation is an error of the scenario",
    )
    group.addoption(
        "--canasta-known-failures", metavar="FILE", default=None,
        help="YAML of scenario ids the engine is expected to fail, with reasons: reported as xfail; "
        "a listed scenario that passes fails the run",
    )
    group.addoption(
        "--canasta-write-known-failures", metavar="FILE", default=None,
        help="after the run, write the failing scenarios to FILE (reasons already in FILE are kept)",
    )
    group.addoption(
        "--canasta-strict-rules", action="store_true",
        help="for an engine that declares cites_rules: a rejection citing any rule but the scenario's own "
        "(even a broader one) fails the scenario instead of being reported as rule-differs",
    )
    group.addoption(
        "--canasta-tier", choices=TIERS, default=None,
        help="run only the scenarios of this tier: core (rules the sources state) or reading "
        "(rules the sources do not settle: confidence C, design notes, unshared conflict readings)",
    )
    group.addoption("--canasta-report", metavar="FILE.json", default=None, help="write a JSON report of every scenario's result")
    group.addoption(
        "--canasta-matrix", metavar="FILE.md", default=None,
        help="write a Markdown conformance matrix: rule areas x results, and the failing rules of each area",
    )
    group.addoption(
        "--canasta-fuzz", metavar="N", type=int, default=0,
        help="run N differential fuzz games against the engine under test, one test item each (without paths, only these)",
    )
    group.addoption("--canasta-fuzz-seed", metavar="S", type=int, default=0, help="the fuzz campaign's seed (default 0)")
    group.addoption("--canasta-fuzz-variant", metavar="VARIANT", default="classic", help="the variant the fuzz games play (default classic)")
    group.addoption("--canasta-fuzz-out", metavar="DIR", default=None, help="write each shrunk fuzz finding to DIR/<id>.yaml")
    for option in group.options:  # every option is also an ini key: `canasta_report = report.json`
        kind = _ini_type(option)
        default: Any = {"bool": False, "paths": []}.get(kind, "")
        parser.addini(option.dest, f"as {option.names()[0]} (the command line wins)", type=kind, default=default)  # type: ignore[arg-type]


def _ini_type(option: Any) -> str:
    attrs = option.attrs()  # a flag takes no argument; a repeatable option defaults to a list
    return "bool" if attrs.get("nargs") == 0 else "paths" if isinstance(attrs.get("default"), list) else "string"


#: options whose value is a file or folder: an ini key's relative path is relative to the ini file
_PATH_OPTIONS = frozenset({"canasta_known_failures", "canasta_write_known_failures", "canasta_report", "canasta_matrix", "canasta_fuzz_out"})
#: read by CanastaState itself, which also refuses both at once
_ENGINE_OPTIONS = frozenset({"canasta_engine", "canasta_engine_cmd"})


def _apply_ini(config: pytest.Config) -> None:
    """An option not given on the command line takes its ini key's value, if the key is set."""
    given = [str(arg) for arg in config.invocation_params.args]
    for option in config._parser.getgroup("canasta").options:
        dest = option.dest
        attrs = option.attrs()
        named = any(arg == name or arg.startswith(f"{name}=") for arg in given for name in option.names())
        if dest in _ENGINE_OPTIONS or named or getattr(config.option, dest, None) != attrs.get("default"):
            continue  # the command line wins (even when it gives the default value)
        value = config.getini(dest)
        if value in ("", False, []):
            continue
        kind = _ini_type(option)
        if kind == "bool":
            setattr(config.option, dest, True)
        elif kind == "paths":
            setattr(config.option, dest, [str(path) for path in value])
        else:
            setattr(config.option, dest, _ini_value(config, dest, str(value).strip(), attrs))


def _ini_value(config: pytest.Config, dest: str, text: str, attrs: dict[str, Any]) -> Any:
    choices = attrs.get("choices")
    if choices and text not in choices:
        raise pytest.UsageError(f"ini key {dest} = {text!r}: choose one of {', '.join(choices)}")
    if dest in _PATH_OPTIONS and config.inipath is not None:
        return str(config.inipath.parent / text)
    convert = attrs.get("type")
    if convert is None:
        return text
    try:
        return convert(text)
    except ValueError:
        raise pytest.UsageError(f"ini key {dest} = {text!r}: not a valid value for {attrs.get('metavar') or dest}") from None


def pytest_configure(config: pytest.Config) -> None:
    heap = config.stash[_HEAP_KEY] = _Heap()
    # Registered before the configure hooks of pytest's own plugins run, so it runs after their
    # clean-ups (which run last registered, first): pytest's final gc.collect() calls find the
    # collected scenarios still frozen.
    config.add_cleanup(heap.restore)
    _apply_ini(config)
    state = config.stash[_SESSION_KEY] = CanastaState(config)
    if hasattr(config, "workerinput"):  # an xdist worker: one message a test, if the controller asked
        from .xdist_transport import hold_worker_events

        hold_worker_events(config)
    if not hasattr(config, "workerinput"):  # the process that reports: serial, or the xdist controller
        collector = config.stash[_COLLECTOR_KEY] = ResultCollector(config, state.report_header)
        config.pluginmanager.register(collector, "canasta-results")
        config.pluginmanager.register(_SilentPasses(config), "canasta-silent-passes")
    if config.getoption("canasta_fuzz"):
        from .fuzz_plugin import FuzzCampaign

        config.pluginmanager.register(FuzzCampaign(config, state), "canasta-fuzz")
    config.addinivalue_line("markers", "canasta: every Canasta scenario")
    if config.option.markers:  # `pytest --markers` lists the area markers too
        _register_area_markers(config)
    for tier in TIERS:
        config.addinivalue_line("markers", f"canasta_{tier}: Canasta scenarios of the {tier} tier")
    if config.getoption("canasta"):
        corpus = str(scenarios_dir())
        if config.args_source == pytest.Config.ArgsSource.ARGS:
            config.args.append(corpus)
        else:
            config.args[:] = [corpus]


class _SilentPasses:
    """(the process that reports) pytest's terminal keeps every set-up and tear-down report that
    passed, and for each failure it shows at the end it looks through all of them for the test's
    tear-down output: with an engine that fails most scenarios (as one does early on) that is
    time quadratic in the number of scenarios (about 40% of a run of 1,000 failing scenarios,
    benchmarks/README.md). A scenario's set-up or tear-down that passed with no output has
    nothing for that summary to show, so the terminal does not keep it, unless ``--durations``
    asks for the slowest set-ups and tear-downs, which it reads from the same reports."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        #: ``--durations`` lists set-ups and tear-downs from the same reports: then they are kept
        self.keep = config.getoption("durations", None) is not None

    @pytest.hookimpl(trylast=True)  # after the terminal has counted the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.keep or report.when == "call" or not report.passed or report.sections or "canasta" not in report.keywords:
            return
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        kept = reporter.stats.get("") if reporter is not None else None
        if kept and kept[-1] is report:
            kept.pop()


_AREAS_KEY = pytest.StashKey[bool]()


class _Heap:
    """The cyclic garbage collector around a run of scenarios. What collection builds (the
    scenarios, the items, the imported modules) lives until the end of the run, and walking it
    again in every full collection costs about a third of a warm scenario's CPU time
    (benchmarks/README.md). So the collector pauses from the first scenario file collected until
    collection ends (collecting scenario files makes no cyclic garbage: the objects it builds are
    kept), and then what was built is moved out of its sight (``gc.freeze()``); garbage made later,
    by the engine or the reports, is collected as usual. Both are process-wide, so the config's
    last clean-up undoes them, after pytest's own end-of-run ``gc.collect()`` calls (which would
    walk every scenario once more).

    A process that ran scenarios also hides its heap from the collector as it exits (an ``atexit``
    hook, :func:`_freeze_heap_at_exit`): the interpreter's shutdown collections walked everything it still
    held, the scenarios, the modules, the engine's tables, about a tenth of a second after a run of
    the corpus (and an xdist controller waits for its workers' too). By then pytest has collected
    the run's garbage (its clean-up above); Python does not promise to finalize what is left at
    exit anyway."""

    def __init__(self) -> None:
        self.paused = False
        self.frozen = False

    def pause(self) -> None:
        if not self.paused and gc.isenabled():
            gc.disable()
            self.paused = True

    def resume(self) -> None:
        if self.paused:
            gc.enable()
            self.paused = False

    def freeze(self) -> None:
        gc.freeze()
        self.frozen = True
        _freeze_heap_at_exit()

    def restore(self) -> None:
        self.resume()
        if self.frozen:
            gc.unfreeze()
            self.frozen = False


@cache
def _freeze_heap_at_exit() -> None:
    """(once a process that runs scenarios) Keep the interpreter's shutdown collections from
    walking the whole heap (see _Heap)."""
    atexit.register(gc.freeze)


_HEAP_KEY = pytest.StashKey[_Heap]()
#: set on the session when its collection has finished
_COLLECTED_KEY = pytest.StashKey[bool]()
#: a folder's hook relay, shared by the scenario items of its files once collection has finished
_RELAYS_KEY = pytest.StashKey[dict[Path, Any]]()


def _register_area_markers(config: pytest.Config, spec: Spec | None = None) -> None:
    """A marker per rule area, registered when the first scenario file is collected (reading the
    spec costs time that a run without scenarios should not pay): the areas of ``spec`` when the
    caller has it loaded, else those of spec.yaml alone."""
    if config.stash.get(_AREAS_KEY, False):
        return
    config.stash[_AREAS_KEY] = True
    for area in (list(spec.areas) if spec is not None else _areas()):
        config.addinivalue_line("markers", f"canasta_{area}: Canasta scenarios of rule area {area!r}")


def _areas() -> list[str]:
    """Rule areas from spec.yaml alone."""
    from ..contract.yamlio import YamlError, read_yaml

    try:
        meta = read_yaml(spec_dir() / "spec.yaml").data
        return [area["id"] for area in meta["areas"]]
    except (OSError, YamlError, KeyError, TypeError):
        return []


def pytest_report_header(config: pytest.Config) -> list[str]:
    if not (config.getoption("canasta") or config.getoption("canasta_engine") or config.getoption("canasta_engine_cmd")):
        return []
    return [_header_line(config)]


def _header_line(config: pytest.Config) -> str:
    state: CanastaState = config.stash[_SESSION_KEY]
    try:
        caps = state._header_capabilities = state.session.capabilities
        engine = f"{caps.name} {caps.version} ({state.engine_label})"
    except Exception as error:  # noqa: BLE001
        engine = f"{state.engine_label} (cannot start: {error})"
    from ..contract.spec import SpecError

    if config.pluginmanager.has_plugin("dsession"):
        state.close()  # an xdist controller runs no scenario: each worker starts its own engine
    try:
        spec = f"{state.spec.name} {state.spec.version}"
    except SpecError:
        spec = "BROKEN (run 'canasta validate')"
    return f"canasta: engine {engine}; spec {spec}"


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--canasta-tier``: deselect the scenarios of the other tier."""
    tier = config.getoption("canasta_tier")
    if tier is None:
        return
    other = [item for item in items if isinstance(item, ScenarioItem) and item.tier.name != tier]
    if other:
        config.hook.pytest_deselected(items=other)
        chosen = set(map(id, other))
        items[:] = [item for item in items if id(item) not in chosen]


def pytest_collection_finish(session: pytest.Session) -> None:
    """In quiet runs pytest hides the header: still say which engine and spec are tested."""
    config = session.config
    config.stash[_HEAP_KEY].resume()
    session.stash[_COLLECTED_KEY] = True
    scenarios = sum(isinstance(item, ScenarioItem) for item in session.items)
    state: CanastaState = config.stash[_SESSION_KEY]
    if scenarios and not state.engine_cmd:
        from ..contract.engine_protocol import EngineLoadError, resolve_factory

        try:  # an engine that cannot be imported is one usage error, not a failure per scenario
            resolve_factory(state.engine_spec)
        except EngineLoadError as error:
            pytest.exit(f"--canasta-engine: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if scenarios and reporter is not None and config.get_verbosity() < 0:
        reporter.write_line(f"{_header_line(config)}; {scenarios} scenarios")
    if scenarios:
        config.stash[_HEAP_KEY].freeze()
    only_scenarios = all(isinstance(item, ScenarioItem | BrokenScenarioItem) for item in session.items)
    if scenarios and only_scenarios and hasattr(config, "workerinput"):
        from .xdist_transport import drop_worker_terminal

        drop_worker_terminal(config)  # an xdist worker's output goes nowhere


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """(xdist controller) An engine named with ``--canasta-engine`` that cannot be imported is one
    usage error before any worker starts (each worker would stop on it, which xdist takes for a
    crash of its own)."""
    config = session.config
    state: CanastaState = config.stash[_SESSION_KEY]
    if state.engine_cmd or state.engine_spec == DEFAULT_ENGINE or not config.pluginmanager.has_plugin("dsession"):
        return
    from ..contract.engine_protocol import EngineLoadError, resolve_factory

    try:
        resolve_factory(state.engine_spec)
    except EngineLoadError as error:
        pytest.exit(f"--canasta-engine: {error}", returncode=pytest.ExitCode.USAGE_ERROR)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """(xdist controller) Ask each worker to send its reports packed (``collector.pack_report_data``)
    and a test's events as one message (``xdist_transport``)."""
    import marshal

    from .xdist_transport import receive_batches

    node.workerinput[PACKING_KEY] = marshal.version
    receive_batches(node, node.config.pluginmanager.get_plugin("dsession"))
    plan = _share_plan(node.config)
    if plan is not None:
        plan.assign(node)


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(config: pytest.Config, report: Any) -> Any:
    """(xdist worker) A report leaves for the controller as one marshalled blob, which execnet
    carries far faster than the report's dicts; only when the controller asked for it (not for
    other consumers of serialized reports, such as report logs)."""
    data = yield
    import marshal

    if isinstance(data, dict) and getattr(config, "workerinput", {}).get(PACKING_KEY) == marshal.version:
        pack_report_data(data)
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(config: pytest.Config, data: dict[str, Any]) -> Any:
    """(xdist controller) A worker's packed report unpacked before pytest rebuilds it."""
    if isinstance(data, dict):
        unpack_report_data(data)
    return (yield)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if _is_scenario(config, file_path):
        # (xdist_shares) a file of another worker's share is not collected here (pytest_ignore_collect
        # says so first); a file named on the command line is, by every worker: pytest stops a run
        # in which a file or test named is not found
        if hasattr(config, "workerinput") and not parent.session.isinitpath(file_path) and not _in_share(config, file_path):
            return None
        config.stash[_HEAP_KEY].pause()
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


#: the scenario files this process has met in its collection, each with its rank in meeting order (xdist_shares)
_SEEN_KEY = pytest.StashKey[dict[Path, int]]()


def _in_share(config: pytest.Config, path: Path) -> bool:
    """(xdist worker) Whether the scenario file ``path`` is in this worker's share (xdist_shares),
    by the rank in which this process first met it: pytest walks the run in the same order in
    every worker, and may meet a file more than once (a folder is walked again for each file
    named in it on the command line), so the rank is kept."""
    seen = config.stash.setdefault(_SEEN_KEY, {})
    return take_share(config.workerinput, seen.setdefault(path, len(seen)))  # type: ignore[attr-defined]


def _is_scenario(config: pytest.Config, path: Path) -> bool:
    """A scenario file: by where it is, or named on the command line or by ``--canasta-scenarios``."""
    state: CanastaState = config.stash[_SESSION_KEY]
    return is_scenario_file(path, config.rootpath) or state.is_named_scenario(path)


#: (xdist controller) the share each worker collects, when the scheduler is ShareScheduling
_SHARES_KEY = pytest.StashKey["SharePlan | None"]()


def _share_plan(config: pytest.Config) -> SharePlan | None:
    """(xdist controller) The plan of the workers' shares, when xdist will schedule the run with
    :class:`ShareScheduling` (``--dist load``, and no other plugin's scheduler first); else None."""
    if _SHARES_KEY not in config.stash:
        scheduler = config.hook.pytest_xdist_make_scheduler(config=config, log=None)
        config.stash[_SHARES_KEY] = SharePlan(scheduler.numnodes) if isinstance(scheduler, ShareScheduling) else None
    return config.stash[_SHARES_KEY]


#: pytest options with which a worker must see the whole run (each reads the tests it collected
#: against what the last run left in the cache: a share would be read as a changed run)
_WHOLE_RUN_OPTIONS = ("lf", "stepwise", "stepwise_skip")


@pytest.hookimpl(optionalhook=True, wrapper=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """(xdist controller) Where xdist would schedule with its own ``LoadScheduling`` (``--dist
    load``, no scheduler of the user's or another plugin's), each worker collects its share of the
    scenario files (see xdist_shares.ShareScheduling, which hands the run to xdist's load
    scheduling when the collections are the same); not with ``--lf`` or ``--sw``, which compare
    each worker's collection with the last run's."""
    scheduler = yield
    if type(scheduler).__name__ != "LoadScheduling" or type(scheduler).__module__ != "xdist.scheduler.load":
        return scheduler
    if any(config.getoption(name, None) for name in _WHOLE_RUN_OPTIONS):
        return scheduler
    dsession = config.pluginmanager.get_plugin("dsession")

    def collected(total: int) -> None:
        show_total(dsession, total)

    return ShareScheduling(config, log, collected)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """(xdist controller) A crashed worker's share goes to the worker that replaces it."""
    plan = node.config.stash.get(_SHARES_KEY, None)
    if error is not None and plan is not None:
        plan.release(node)


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """(xdist worker) A scenario file of another worker's share is not collected here, nor looked
    at further (xdist_shares). A symlinked folder that leads back to one of its own parents (a
    loop) is walked once, not again."""
    if hasattr(config, "workerinput") and _is_scenario(config, collection_path) and collection_path.is_file():
        return None if _in_share(config, collection_path) else True
    if collection_path.is_symlink() and collection_path.is_dir():
        target = collection_path.resolve()
        if target == collection_path.parent.resolve() or target in collection_path.parent.resolve().parents:
            return True
    return None


class ScenarioFile(pytest.File):
    def collect(self) -> Any:
        """The file's scenario item, built from what the scenario cache keeps beside the scenario
        (id, rules, areas, tier): the scenario itself is unpickled by the process that runs the
        item (under xdist's ``--dist`` modes other than ``load``, every worker collects every
        scenario of the run and runs some: see xdist_shares)."""
        from ..contract.spec import SpecError
        from ..running.scenario_cache import load_cached

        state: CanastaState = self.config.stash[_SESSION_KEY]
        _register_area_markers(self.config, state.spec_or_none())  # the spec is loaded here anyway
        try:
            loaded = load_cached(self.path, state.spec)
        except Exception as error:
            from ..contract.scenario import ScenarioError  # loaded already if it raised

            if not isinstance(error, ScenarioError | SpecError):
                raise
            yield BrokenScenarioItem.from_parent(self, name=self.path.stem, problems=str(error))
            return
        item = ScenarioItem.from_parent(self, name=loaded.id, loaded=loaded)
        item.add_marker("canasta")
        for area in loaded.rule_areas:
            item.add_marker(f"canasta_{area}")
        item.extra_keyword_matches.update(loaded.rules)
        if loaded.tier is not None:  # the tier the cache keeps with the scenario
            item.tier = loaded.tier
        else:
            from ..contract.tiers import scenario_tier

            item.tier = scenario_tier(item.scenario, state.spec)
        item.add_marker(f"canasta_{item.tier.name}")
        reason = state.known_failures.get(loaded.id)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=f"known failure: {reason}", strict=True))
            item.known_failure = reason
        yield item


class ScenarioFailed(CanastaError):
    def __init__(self, result: Result) -> None:
        super().__init__(result.message)
        self.result = result


class BrokenScenarioItem(pytest.Item):
    """A scenario file that does not load: an error for this file only."""

    def __init__(self, *, problems: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problems = problems

    def setup(self) -> None:
        from ..running.report import ReportEntry

        entry = ReportEntry(self.name, "error", message="invalid scenario file", path=self.location[0],
                            details=tuple(self.problems.splitlines()))
        self.user_properties.append((RESULT_PROPERTY, entry.to_json()))
        pytest.fail(
            f"invalid scenario file:\n{self.problems}\n\ncheck it with: canasta validate {shlex.quote(str(self.path))}",
            pytrace=False,
        )

    def runtest(self) -> None:  # pragma: no cover - setup always fails
        pass

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario file {self.path.name}"


class ScenarioItem(pytest.Item):
    def __init__(self, *, loaded: Loaded, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        from ..contract.tier_records import Tier

        self._loaded = loaded
        self.tier = Tier("core")
        self.known_failure: str | None = None  # the reason the known-failures file gives
        self._hook_relay: Any = None

    @cached_property
    def scenario(self) -> Scenario:
        """The scenario, unpickled from its cache entry when first asked for (at its run), and let
        go when the item is torn down (:meth:`teardown`)."""
        return self._loaded.scenario()

    def teardown(self) -> None:
        """Let the scenario go once the item has run (asked for again, it is unpickled again): the
        objects of the run's scenarios, kept, would pile up for the cyclic garbage collector to
        walk in every full collection, as those built at collection no longer are (``_Heap``)."""
        self.__dict__.pop("scenario", None)

    @property
    def ihook(self) -> Any:
        """pytest's hook relay for this item's file (the hooks of the conftest files that apply to
        it), asked of the session once the run has begun instead of at each of the dozen hook calls
        of an item's run (each a path look-up): no conftest file is loaded after collection. The
        relay depends on the file's folder only (the conftest files above it), so the items of one
        folder share it."""
        relay = self._hook_relay
        if relay is None:
            if not self.session.stash.get(_COLLECTED_KEY, False):
                return super().ihook
            relays = self.session.stash.setdefault(_RELAYS_KEY, {})
            folder = self.path.parent
            relay = relays.get(folder)
            if relay is None:
                relay = relays[folder] = super().ihook
            self._hook_relay = relay
        return relay

    @cached_property
    def location(self) -> tuple[str, int | None, str]:
        """pytest's location of the item: the file relative to the root directory, as pytest
        gives it; for a file below the root directory (the usual case) without pytest's path
        arithmetic (several Path objects an item)."""
        path, line, description = self.reportinfo()
        text, root = str(path), str(self.config.rootpath)
        if text.startswith(root + os.sep) and os.path.normpath(text) == text:
            return (text[len(root) + 1:], line, description)
        return super().location

    def runtest(self) -> None:
        from ..contract.engine_protocol import EngineLoadError
        from ..running.runner import Result

        state: CanastaState = self.config.stash[_SESSION_KEY]
        try:
            result = state.session.run(self.scenario, self.tier)  # the tier computed at collection
        except EngineLoadError as error:
            self._record(Result(self.scenario.id, "error", str(error), rules=self.scenario.rules))
            raise pytest.UsageError(str(error)) from None
        self._record(result)
        if result.status == "unsupported":
            # reported at the scenario file, not here (pytest's own skip marks do the same)
            raise pytest.skip.Exception(f"unsupported: {result.message}", _use_item_location=True)
        if result.status not in ("passed", "rule-differs"):
            raise ScenarioFailed(result)

    def _record(self, result: Result) -> None:
        """The result as one user property: it reaches the xdist controller, the reports and JUnit."""
        from ..running.report import ReportEntry

        entry = ReportEntry.from_result(self.scenario, result, tier=self.tier, path=self.location[0], known_failure=self.known_failure)
        self.user_properties.append((RESULT_PROPERTY, entry.to_json()))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | Any:
        if not isinstance(excinfo.value, ScenarioFailed):
            return super().repr_failure(excinfo)
        state: CanastaState = self.config.stash[_SESSION_KEY]
        from ..running.messages import failure_lines

        result = excinfo.value.result
        lines = [*failure_lines(self.scenario, result, state.spec_or_none()), "", f"rerun just this scenario: {state.rerun_command(self.path)}"]
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario {self._loaded.id}"


#: the exit status of a run that collected scenarios but executed none (pytest's "no tests ran")
NOTHING_RAN = pytest.ExitCode.NO_TESTS_COLLECTED


def _nothing_ran(config: pytest.Config) -> str | None:
    """Why the run tested nothing, if it collected scenarios and executed none of them."""
    collector = config.stash.get(_COLLECTOR_KEY, None)
    if collector is None or not collector.entries or config.getoption("canasta_allow_no_run"):
        return None
    statuses = [entry.status for entry in collector.entries.values()]
    if any(status != "unsupported" for status in statuses):
        return None
    return (f"canasta: no scenario was executed: the engine supports none of the {len(statuses)} collected "
            "(it declared them unsupported); the run fails (--canasta-allow-no-run accepts it)")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if exitstatus == pytest.ExitCode.OK and _nothing_ran(config) is not None:
        session.exitstatus = NOTHING_RAN
    workeroutput = getattr(config, "workeroutput", None)
    caps = config.stash[_SESSION_KEY].known_capabilities()
    if workeroutput is not None and caps is not None:
        workeroutput[WORKER_ENGINE_KEY] = caps.to_json()  # for the controller's report header


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_SESSION_KEY, None)
    if state is not None:
        state.close()  # stop an engine process cleanly


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    collector = config.stash.get(_COLLECTOR_KEY, None)
    if collector is None:
        return
    for line in collector.written:
        terminalreporter.write_line(line)
    why = _nothing_ran(config)
    if why is not None:
        terminalreporter.write_line(why, red=True)
    if not collector.entries:
        return
    from ..running.report import citation_counts, counts_by_area, counts_by_tier, shown_statuses

    by_area, totals = counts_by_area(collector.entries.values())
    if not totals:
        return
    columns = shown_statuses(totals)
    terminalreporter.section("Canasta conformance by rule area")
    terminalreporter.write_line(f"{'area':<12}" + "".join(f"{c:>13}" for c in columns))
    for area, counts in by_area.items():
        terminalreporter.write_line(f"{area:<12}" + "".join(f"{counts[c]:>13}" for c in columns))
    terminalreporter.write_line(
        f"{'scenarios':<12}" + "".join(f"{totals[c]:>13}" for c in columns)
        + "   (a scenario counts once in the total and once per area it touches)"
    )
    for tier, counts in counts_by_tier(collector.entries.values()).items():
        terminalreporter.write_line(f"{'  ' + tier:<12}" + "".join(f"{counts[c]:>13}" for c in columns))
    citations = citation_counts(collector.entries.values())
    if citations:
        terminalreporter.write_line(
            f"rule citations: {citations.get('differs', 0)} differ from the scenario's rule (rule-differs: not failures "
            f"unless --canasta-strict-rules), {citations.get('broader', 0)} name a broader rule (they agree)"
        )
        differing = sorted((e for e in collector.entries.values() if e.status == "rule-differs"), key=lambda e: e.id)
        for entry in differing[:SHOWN_RULE_DIFFERS]:
            terminalreporter.write_line(f"  rule-differs {entry.id}: {entry.message}")
        if len(differing) > SHOWN_RULE_DIFFERS:
            terminalreporter.write_line(f"  ... and {len(differing) - SHOWN_RULE_DIFFERS} more (every one is in --canasta-report and --canasta-matrix)")
