"""``surefoot faults serve|proxy``: the fault server and the chaos proxy, for other programs.

``surefoot faults serve --scenario FILE [--host H] [--port N]`` runs a :class:`FaultServer`;
``surefoot faults proxy --upstream URL --scenario FILE [--port N]`` runs a :class:`ChaosProxy`.
Both print their base URL and run until Ctrl-C (or SIGTERM). A bad scenario file or a port
in use is a one-line message and exit status 2.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType
from typing import Any

from surefoot.cli._out import clean
from surefoot.testing.faults import (
    ChaosProxy,
    FaultServer,
    PortInUseError,
    Scenario,
    ScenarioError,
    load_scenario,
)
from surefoot.testing.faults._base import ThreadedServer

__all__ = ["register", "run_proxy", "run_serve"]


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "faults",
        help="run the fault-injecting LLM server or the chaos proxy",
        description="A fault-injecting OpenAI/Anthropic server, or a proxy that injects faults "
        "into real traffic, driven by a YAML scenario.",
    )
    commands = p.add_subparsers(dest="faults_command", metavar="COMMAND")
    p.set_defaults(handler=lambda _args: _usage(p))

    serve = commands.add_parser(
        "serve",
        help="serve OpenAI chat completions and Anthropic messages, failing on purpose",
        description="Serve /v1/chat/completions and /v1/messages with a scripted model and "
        "the scenario's faults, until Ctrl-C.",
    )
    _common(serve)
    serve.set_defaults(handler=run_serve)

    proxy = commands.add_parser(
        "proxy",
        help="forward to a real provider, injecting the scenario's faults",
        description="Forward requests to --upstream, injecting faults by the scenario's rules "
        "and passing the rest through untouched, until Ctrl-C.",
    )
    proxy.add_argument(
        "--upstream", required=True, metavar="URL", help="e.g. https://api.openai.com"
    )
    _common(proxy)
    proxy.set_defaults(handler=run_proxy)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scenario", metavar="FILE", help="YAML scenario (default: no faults)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=_port, default=0, help="port (default: a free one)")


def _port(text: str) -> int:
    """``--port``: an int in 0..65535 (argparse reports anything else as a usage error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            f"port must be between 0 and 65535, got {value}; 0 picks a free port"
        )
    return value


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _scenario(args: argparse.Namespace) -> Scenario | None:
    if args.scenario is None:
        return Scenario()
    try:
        return load_scenario(args.scenario)
    except ScenarioError as exc:
        print(clean(f"surefoot faults: bad scenario: {exc}"), file=sys.stderr)
    except OSError as exc:
        print(
            clean(f"surefoot faults: cannot read {args.scenario}: {exc.strerror}"), file=sys.stderr
        )
    return None


def run_serve(args: argparse.Namespace) -> int:
    scenario = _scenario(args)
    if scenario is None:
        return 2
    try:
        server = FaultServer(scenario, host=args.host, port=args.port)
    except (TypeError, ValueError) as exc:
        print(clean(f"surefoot faults: {exc}"), file=sys.stderr)
        return 2
    return _run(server, "fault server", len(scenario.rules), len(scenario.models))


def run_proxy(args: argparse.Namespace) -> int:
    scenario = _scenario(args)
    if scenario is None:
        return 2
    try:
        proxy = ChaosProxy(args.upstream, scenario, host=args.host, port=args.port)
    except (TypeError, ValueError) as exc:
        print(clean(f"surefoot faults: {exc}"), file=sys.stderr)
        return 2
    return _run(proxy, f"chaos proxy to {proxy.upstream}", len(scenario.rules), None)


def _on_term(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _run(server: ThreadedServer, what: str, rules: int, models: int | None) -> int:
    if failed := _start(server):
        return failed
    detail = f"{rules} rule(s)" + (f", {models} model(s)" if models is not None else "")
    previous = None
    try:
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGTERM, _on_term)
        print(f"surefoot faults: {what} listening on {server.base_url} ({detail}); Ctrl-C to stop")
        sys.stdout.flush()
        while True:
            threading.Event().wait(3600)
    except KeyboardInterrupt:
        print("surefoot faults: stopped", file=sys.stderr)
        return 0
    finally:
        server.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _start(server: ThreadedServer) -> int:
    """Start ``server``; 0 on success, else 2 after a one-line message."""
    try:
        server.start()
    except PortInUseError as exc:
        print(clean(f"surefoot faults: {exc}"), file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            clean(f"surefoot faults: cannot listen on {server.host}:{server.port}: {exc}"),
            file=sys.stderr,
        )
        return 2
    return 0
