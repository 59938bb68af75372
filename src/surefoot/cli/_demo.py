"""``surefoot demo``: see surefoot handle a bad day at the provider, with no key and no network.

Starts the local fault server and runs a travel agent through the resilient client while the
server rate-limits, fails, cuts a stream, overflows a context window, goes down and stalls;
prints a live timeline and exits 0 only if every step behaved as the scenario expects (1
otherwise, 2 for bad arguments, 130 on Ctrl-C). ``--html FILE`` writes a self-contained report,
``--json`` prints one JSON document (the timeline then goes to stderr).
``--base-url URL --model NAME [--api-key KEY] [--style openai|anthropic]`` runs the plain
calls against a real endpoint instead; the steps that need injected faults are skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from surefoot.demo import DemoOptions


__all__ = ["API_KEY_ENV", "register", "run"]

#: Read when ``--api-key`` is not given, so the key stays out of the shell history.
API_KEY_ENV = "SUREFOOT_API_KEY"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "demo",
        help="watch surefoot handle 429s, 503s, mid-stream overloads, outages and stalls (no key "
        "needed)",
        description="Run a travel agent through the resilient client against the local fault "
        "server: tool calls, a 429 with Retry-After, a 503 burst, an overload mid-stream "
        "resumed without a lost or repeated token, a "
        "context overflow, an outage behind a circuit breaker and a stalled run. Exits 1 if "
        "any step did not behave as expected.",
    )
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    p.add_argument("--base-url", metavar="URL", help="run the plain calls against this endpoint")
    p.add_argument(
        "--api-key", metavar="KEY", help=f"the endpoint's API key (default: ${API_KEY_ENV})"
    )
    p.add_argument("--model", metavar="NAME", help="the endpoint's model (with --base-url)")
    p.add_argument(
        "--style",
        choices=("openai", "anthropic"),
        default="openai",
        help="wire format: OpenAI chat completions or Anthropic messages (default: openai)",
    )
    p.set_defaults(handler=run)


def _options(args: argparse.Namespace) -> DemoOptions:
    from surefoot import _check
    from surefoot.demo import DemoOptions

    api_key = args.api_key
    if args.base_url is not None and api_key is None:
        api_key = os.environ.get(API_KEY_ENV) or None
    if args.base_url is not None:
        _check.url(
            "--base-url", args.base_url, fix="the API root, like 'https://api.openai.com/v1'"
        )
    if api_key is not None:
        _check.text("--api-key", api_key)
        _check.header("--api-key", api_key, secret=True, fix="pass the key without a line break")
    if args.model is not None:
        _check.text("--model", args.model)
    return DemoOptions(base_url=args.base_url, api_key=api_key, model=args.model, style=args.style)


def run(args: argparse.Namespace) -> int:
    """The command; Ctrl-C at any point is a one-line message and exit status 130."""
    try:
        return _run(args)
    except KeyboardInterrupt:
        print("surefoot demo: interrupted; the fault server is stopped", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    from surefoot.cli._out import clean

    # Imported here so that a Ctrl-C while the client's dependencies load is a clean stop too.
    from surefoot.cli._report import finish, html_target
    from surefoot.demo import Timeline, make_console, run_demo

    err = make_console(sys.stderr)
    try:
        options = _options(args)
    except (TypeError, ValueError) as exc:
        err.print(clean(f"surefoot demo: {exc}"), markup=False, highlight=False, soft_wrap=True)
        return 2
    usable, html = html_target(args.html, err, "surefoot demo")
    if not usable:
        return 2
    console = err if args.json else make_console(sys.stdout)
    timeline = Timeline(console)
    try:
        result = asyncio.run(run_demo(options, sink=timeline))
    finally:
        timeline.close()
    return finish(result, html, args.json, console, err, "surefoot demo")
