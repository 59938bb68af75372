"""``surefoot timeline events.jsonl``: the demo's timeline and report for a user's own runs.

Reads an event log written by :func:`surefoot.telemetry.record_events` (or with
``SUREFOOT_EVENTS=path``), prints one lane per logged call (its attempts, waits, fallbacks and
breaker changes) and, with ``--html FILE``, writes the same self-contained report the demo
writes; ``--json`` prints it as one JSON document instead. Exits 0 when every logged call
succeeded, 1 when one failed, 2 for a file that cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "timeline",
        help="render an event log of your own runs as the demo's timeline and HTML report",
        description="Render an event log (surefoot.telemetry.record_events, or SUREFOOT_EVENTS="
        "path) as a timeline: one lane per call with its attempts, waits, fallbacks and breaker "
        "changes. Exits 1 if a logged call failed.",
    )
    p.add_argument("events", metavar="EVENTS.jsonl", help="the event log to read")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from surefoot._version import __version__
    from surefoot.cli._report import finish, html_target
    from surefoot.demo import Timeline, make_console
    from surefoot.demo._events import EventLogError, load_events

    err = make_console(sys.stderr)
    try:
        loaded = load_events(args.events)
    except FileNotFoundError:
        err.print(f"surefoot timeline: no such file: {args.events}", markup=False)
        return 2
    except (OSError, EventLogError) as exc:
        err.print(f"surefoot timeline: {exc}", markup=False, soft_wrap=True)
        return 2
    result = loaded.result
    result.version = __version__
    usable, html = html_target(args.html, err, "surefoot timeline")
    if not usable:
        return 2
    console = err if args.json else make_console(sys.stdout)
    timeline = Timeline(console)
    timeline.begin(result.mode, result.base_url, len(result.steps))
    for i, step in enumerate(result.steps):
        timeline.step_started(i, step)
        for row in step.attempts:
            timeline.attempt(row)
        for mark in step.marks:
            timeline.mark(mark)
        timeline.step_finished(i, step)
    timeline.finished(result)
    timeline.close()
    if loaded.skipped:
        console.print(
            f"{loaded.skipped} line(s) skipped: unknown events or a newer format", markup=False
        )
    return finish(result, html, args.json, console, err, "surefoot timeline")
