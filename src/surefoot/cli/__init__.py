"""The ``surefoot`` command: one sub-command a module, dispatched from here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from surefoot._version import __version__
from surefoot.cli import _classify, _demo, _explain, _faults, _timeline

__all__ = ["main"]

_COMMANDS = (_demo, _explain, _classify, _faults, _timeline)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="surefoot",
        description="Typed errors, classification and resilience for LLM and agent calls.",
    )
    parser.add_argument("--version", action="version", version=f"surefoot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(handler(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
