"""The end shared by ``surefoot demo`` and ``surefoot timeline``: the ``--html`` path checked
before the run, then the report written, the JSON printed and the exit code chosen."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from surefoot.demo import DemoResult

__all__ = ["finish", "html_target"]


def html_target(value: str | None, err: Console, prog: str) -> tuple[bool, Path | None]:
    """Whether ``--html`` is usable (after saying why not: its directory does not exist), and
    its path (``None`` when not given)."""
    if not value:
        return True, None
    html = Path(value)
    if not html.parent.is_dir():
        err.print(f"{prog}: no such directory for --html: {html.parent}", markup=False)
        return False, None
    return True, html


def finish(
    result: DemoResult, html: Path | None, as_json: bool, console: Console, err: Console, prog: str
) -> int:
    """Write the HTML report and the JSON document asked for; 0 when the run passed, 1 when
    it did not, 2 when the report cannot be written."""
    from surefoot.demo import to_json, write_html

    if html is not None:
        try:
            write_html(result, html)
        except OSError as exc:
            err.print(f"{prog}: cannot write {html}: {exc.strerror}", markup=False)
            return 2
        console.print(f"HTML report: {html}", markup=False)
    if as_json:
        print(to_json(result))
    return 0 if result.passed else 1
