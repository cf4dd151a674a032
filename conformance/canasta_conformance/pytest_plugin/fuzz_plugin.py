"""The fuzz campaign as pytest items: ``pytest --canasta-fuzz N``.

Item *g* plays game *g* of the campaign's seed (``--canasta-fuzz-seed``), so the seeds partition
deterministically and pytest-xdist spreads the games over cores (and, with its remote workers,
over machines) with the same results as a serial run. A disagreement fails its item with the
finding and the shrunk scenario (written to ``--canasta-fuzz-out DIR`` when given). The
reporting process shows a progress line (games, steps per second, findings), and Ctrl-C prints
the findings so far.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from ..contract.engine_protocol import Engine
from ..contract.errors import CanastaError
from ..running.fuzz import Fuzzer, FuzzSettings, FuzzUnsupported

FUZZ_PROPERTY = "canasta_fuzz"
PROGRESS_EVERY = 2.0  # seconds between progress lines


class FuzzCampaign:
    """Registered as a plugin when ``--canasta-fuzz N`` is given."""

    def __init__(self, config: pytest.Config, state: Any) -> None:
        self.config = config
        self.state = state  # the plugin's CanastaState: the engine under test, its session
        self.games: int = config.getoption("canasta_fuzz")
        self.seed: int = config.getoption("canasta_fuzz_seed")
        self.variant: str = config.getoption("canasta_fuzz_variant")
        out = config.getoption("canasta_fuzz_out")
        self.out = Path(out) if out else None
        self._fuzzer: Fuzzer | None = None
        # progress and findings, in the reporting process
        self.done = 0
        self.steps = 0
        self.findings: list[str] = []
        self.started = time.perf_counter()
        self.last_line = self.started
        if config.args_source != pytest.Config.ArgsSource.ARGS:
            config.args[:] = []  # no paths given: run the fuzz games only

    # --- the items ------------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
        for game in range(self.games):
            items.append(FuzzItem.from_parent(session, name=f"canasta-fuzz[seed{self.seed}-game{game}]", campaign=self, game=game))

    def fuzzer(self) -> Fuzzer:
        if self._fuzzer is None:
            session = self.state.session
            restart = None
            if self.state.engine_cmd:
                def restart() -> Engine:
                    session.restart()
                    return session.engine  # type: ignore[no-any-return]
            self._fuzzer = Fuzzer(
                session.engine, FuzzSettings(variant=self.variant, seed=self.seed), spec=self.state.spec,
                capabilities=session.capabilities, restart=restart,
            )
        return self._fuzzer

    # --- progress and findings (the reporting process) -------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if FUZZ_PROPERTY not in props or report.when != "call":
            return
        self.done += 1
        self.steps += int(str(props.get("canasta_fuzz_steps", 0)))
        if report.failed:
            self.findings.append(f"{report.nodeid}: {props.get('canasta_fuzz_finding', '')}")
        now = time.perf_counter()
        if now - self.last_line >= PROGRESS_EVERY or self.done == self.games:
            self.last_line = now
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:
                reporter.write_line(self.progress_line())

    def progress_line(self) -> str:
        seconds = time.perf_counter() - self.started
        rate = self.steps / seconds if seconds > 0 else 0.0
        return (
            f"canasta fuzz: {self.done}/{self.games} games, {self.steps} steps ({rate:.0f} steps/s), "
            f"{len(self.findings)} finding{'s' if len(self.findings) != 1 else ''}"
        )

    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        reporter.write_line("")
        reporter.write_line(f"interrupted: {self.progress_line()}")
        for line in self.findings:
            reporter.write_line(f"  {line}")


class FuzzFinding(CanastaError):
    pass


class FuzzItem(pytest.Item):
    def __init__(self, *, campaign: FuzzCampaign, game: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.campaign = campaign
        self.game = game

    def runtest(self) -> None:
        from ..running.shrink import shrink_and_write

        fuzzer = self.campaign.fuzzer()
        reason = fuzzer.unsupported_reason()
        if reason:
            pytest.skip(f"unsupported: {reason}")
        steps_before = fuzzer.stats.steps
        try:
            finding = fuzzer.play_game(self.game)
        except FuzzUnsupported as error:
            pytest.skip(f"unsupported: {error}")
        finally:
            self.user_properties += [(FUZZ_PROPERTY, self.game), ("canasta_fuzz_steps", fuzzer.stats.steps - steps_before)]
        if finding is None:
            return
        self.user_properties.append(("canasta_fuzz_finding", finding.difference.message))
        label = self.campaign.state.engine_label
        if self.campaign.out is not None:
            written = shrink_and_write(finding, fuzzer, fuzzer.spec, label, self.campaign.out)
        else:
            with tempfile.TemporaryDirectory() as scratch:
                written = shrink_and_write(finding, fuzzer, fuzzer.spec, label, Path(scratch))
        where = f"written to {written.path}" if self.campaign.out is not None else "not written (use --canasta-fuzz-out DIR)"
        status = "confirmed" if written.confirmed else "NOT confirmed"
        raise FuzzFinding("\n".join([finding.report(), "", f"shrunk scenario ({status}; {where}):", written.problems or written.text]))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | Any:
        if isinstance(excinfo.value, FuzzFinding):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path("canasta-fuzz"), 0, f"fuzz game {self.game} of seed {self.campaign.seed}"
