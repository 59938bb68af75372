"""The terminal timeline: one row per attempt as it happens, the checks of each step, a summary.

Rows are printed when they happen (never redrawn), so a log file or a CI console reads the same
as a terminal. On a terminal a transient spinner says what the demo is waiting for; anywhere
else rich's auto-detection turns colour and the spinner off, and lines are laid out for 120
columns unless ``COLUMNS`` says otherwise.
"""

from __future__ import annotations

import os
from typing import IO

from rich.console import Console
from rich.status import Status
from rich.table import Table
from rich.text import Text

from surefoot.demo._records import AttemptRow, DemoResult, Mark, StepResult

__all__ = ["OUTCOME_STYLES", "Timeline", "make_console"]

#: rich styles of the attempt outcomes (and of the HTML colours' names, for consistency).
OUTCOME_STYLES = {
    "ok": "green",
    "retry": "yellow",
    "reconnect": "cyan",
    "restart": "cyan",
    "continue": "cyan",
    "fallback": "magenta",
    "rejected": "bright_black",
    "fail": "red",
    "deadline": "red",
}
_STATUS_STYLE = {"passed": "bold green", "failed": "bold red", "skipped": "bold bright_black"}
# (header, width, justify) of the attempt columns.
_COLUMNS: tuple[tuple[str, int, str], ...] = (
    ("t", 6, "right"),
    ("model", 15, "left"),
    ("try", 3, "right"),
    ("error", 23, "left"),
    ("kind", 16, "left"),
    ("decision", 28, "left"),
    ("wait", 6, "right"),
    ("outcome", 9, "left"),
)
_INDENT = 5
#: Shorter words for long policy reasons (the JSON and HTML keep the exact ones).
_SHORT_REASONS = {"error's suggested delay": "error's own delay"}


def make_console(file: IO[str] | None = None) -> Console:
    """A console on ``file`` (stdout by default): auto-detected, 120 columns when not a tty."""
    console = Console(file=file, highlight=False, soft_wrap=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(file=file, highlight=False, soft_wrap=False, width=120)
    return console


def _row_table() -> Table:
    table = Table.grid(padding=(0, 1), pad_edge=False)
    table.add_column(width=_INDENT - 1, no_wrap=True)
    for _name, width, justify in _COLUMNS:
        table.add_column(
            width=width,
            no_wrap=True,
            overflow="ellipsis",
            justify="right" if justify == "right" else "left",
        )
    return table


def _error(row: AttemptRow) -> str:
    if row.error_code is None:
        return "—"
    status = f"{row.status} " if row.status is not None else ""
    return f"{status}{row.code or row.error_code}"


def _decision(row: AttemptRow) -> str:
    reason = _SHORT_REASONS.get(row.reason, row.reason)
    if row.decision is None:
        return reason or "—"
    return f"{row.decision} · {reason}" if reason else row.decision


def _indented(*cells: Text) -> Table:
    """``cells`` in a grid after the indent, so that long text wraps under itself."""
    grid = Table.grid(padding=(0, 1), pad_edge=False)
    grid.add_column(width=_INDENT - 1, no_wrap=True)
    for i in range(len(cells)):
        last = i == len(cells) - 1
        grid.add_column(no_wrap=not last, ratio=1 if last else None)
    grid.add_row("", *cells)
    return grid


class Timeline:
    """A :class:`~surefoot.demo._env.Sink` that prints the demo on a rich console."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._status: Status | None = None
        self._steps = 0
        self._header = False

    # -- the sink ----------------------------------------------------------------------------

    def begin(self, mode: str, where: str, steps: int) -> None:
        self._steps = steps
        c = self.console
        if mode == "events":
            c.print(Text(f"surefoot timeline · {steps} logged call(s) from {where}", "bold"))
            return
        c.print(Text("surefoot demo · a travel agent on a bad day at the provider", "bold"))
        if mode == "fault-server":
            c.print(f"fault server {where} on loopback · no API key, no network")
        else:
            c.print(f"endpoint {where} · only the plain calls run; fault steps are skipped")

    def step_started(self, index: int, step: StepResult) -> None:
        c = self.console
        c.print()
        c.print(Text.assemble((f"[{index + 1}/{self._steps}] ", "bold cyan"), (step.title, "bold")))
        c.print(_indented(Text(step.story, "italic")))
        self._header = False
        self._spin(f"{step.title}…")

    def _print_header(self) -> None:
        if not self._header:
            self._header = True
            header = _row_table()
            header.add_row("", *(Text(name, "dim") for name, _w, _j in _COLUMNS))
            self.console.print(header)

    def attempt(self, row: AttemptRow) -> None:
        self._print_header()
        style = OUTCOME_STYLES.get(row.outcome, "")
        table = _row_table()
        table.add_row(
            "",
            f"{row.t_end:5.2f}s",
            row.model,
            str(row.attempt + 1),
            Text(_error(row), "red" if row.error_code else "dim"),
            row.kind or "—",
            _decision(row),
            f"{row.wait:.2f}s" if row.wait else "—",
            Text(row.outcome, style),
        )
        self.console.print(table)
        if row.wait:
            self._spin(f"waiting {row.wait:.2f} s before the next attempt ({row.reason})")

    def mark(self, mark: Mark) -> None:
        self._print_header()
        icon = {"tool": "tool", "breaker": "⚡", "note": "·"}[mark.kind]
        style = "blue" if mark.kind == "tool" else "bold magenta"
        when = Text(f"{mark.t:5.2f}s".rjust(_COLUMNS[0][1]))
        self.console.print(_indented(when, Text(f"{icon} {mark.text}", style)))

    def step_finished(self, index: int, step: StepResult) -> None:
        self._stop_spin()
        c = self.console
        for check in step.checks:
            mark, style = ("✓", "green") if check.ok else ("✗", "bold red")
            line = Text(check.expect, style)
            line.append(f"  ({check.observed})", "dim")
            c.print(_indented(Text(mark, style), line))
        verdict = Text(" " * _INDENT)
        verdict.append(step.status.upper(), _STATUS_STYLE[step.status])
        if step.status == "skipped":
            verdict.append(f" {step.skip_reason.removeprefix('skipped ')}", "bright_black")
        else:
            verdict.append(f" in {step.duration:.2f} s", "dim")
        c.print(verdict)

    def finished(self, result: DemoResult) -> None:
        self._stop_spin()
        c = self.console
        c.print()
        c.print(_summary_table(result))
        s = result.summary
        c.print(
            f"{s.calls} calls, {s.attempts} attempts, {s.retries} retries, "
            f"{s.waited:.2f} s waited, {s.breaker_saved} calls the breaker saved"
            + (f", {s.server_requests} requests reached the server" if s.server_requests else "")
        )
        failed = [st.key for st in result.steps if st.status == "failed"]
        if result.mode == "events":
            ok = sum(1 for st in result.steps if st.status == "passed")
            verdict = Text(
                "PASSED" if result.passed else "FAILED",
                "bold green" if result.passed else "bold red",
            )
            verdict.append(f" {ok}/{len(result.steps)} logged calls succeeded")
        elif result.passed:
            verdict = Text("PASSED", "bold green")
            if s.skipped:
                said = f" the {s.passed} step(s) that ran behaved as expected; {s.skipped} skipped"
            else:
                said = " every step behaved as the scenario expects"
            verdict.append(f"{said} · {result.wall_time:.1f} s", "green")
        elif failed:
            verdict = Text("FAILED", "bold red")
            verdict.append(f" not as expected: {', '.join(failed)}", "red")
        else:
            verdict = Text("FAILED", "bold red")
            verdict.append(" no step ran", "red")
        c.print(verdict)

    # -- the spinner (terminals only) --------------------------------------------------------

    def _spin(self, text: str) -> None:
        if not self.console.is_terminal:
            return
        if self._status is None:
            self._status = self.console.status(text, spinner="dots")
            self._status.start()
        else:
            self._status.update(text)

    def close(self) -> None:
        """Stop the spinner (after an interruption, say)."""
        self._stop_spin()

    def _stop_spin(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


def _summary_table(result: DemoResult) -> Table:
    table = Table(title="summary", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("step")
    table.add_column("result")
    for name in ("calls", "attempts", "retries", "waited", "breaker saved", "time"):
        table.add_column(name, justify="right")
    for i, st in enumerate(result.steps, start=1):
        n_attempts = sum(1 for a in st.attempts if a.outcome != "rejected")
        cells = [
            str(st.calls),
            str(n_attempts),
            str(st.retries),
            f"{st.waited:.2f} s",
            str(st.rejected),
            f"{st.duration:.2f} s",
        ]
        if st.status == "skipped":
            cells = ["—"] * len(cells)
        table.add_row(f"{i} {st.title}", Text(st.status, _STATUS_STYLE[st.status]), *cells)
    s = result.summary
    table.add_section()
    table.add_row(
        "total",
        Text(
            "passed" if result.passed else "FAILED", "bold green" if result.passed else "bold red"
        ),
        str(s.calls),
        str(s.attempts),
        str(s.retries),
        f"{s.waited:.2f} s",
        str(s.breaker_saved),
        f"{result.wall_time:.2f} s",
    )
    return table
