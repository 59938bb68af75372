"""``surefoot explain CODE``: what a code means and what to do about it."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from surefoot import catalog
from surefoot._redact import redact
from surefoot.cli._out import clean

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "explain",
        help="explain error codes from the catalog",
        description="Explain catalog codes: RATE_LIMIT_EXCEEDED, SUREFOOT-NETWORK, ...",
    )
    p.add_argument("codes", nargs="*", metavar="CODE", help="codes to explain")
    p.add_argument("--json", action="store_true", help="print JSON for programs")
    p.add_argument("--family", choices=catalog.FAMILY_ORDER, help="only this family")
    p.add_argument("--list", action="store_true", help="list every code")
    p.set_defaults(handler=run)


def _retry_text(value: bool | None) -> str:
    return {True: "yes", False: "no", None: "read the response's retryable field"}[value]


def _render(entry: catalog.CatalogEntry) -> str:
    lines = [f"{entry.code}  [{entry.family}]  {entry.title}"]
    if entry.status is not None:
        lines.append(f"  status      {entry.status}")
    lines.append(f"  retryable   {_retry_text(entry.retryable)}")
    if entry.retry_delay is not None:
        lines.append(f"  retry after {entry.retry_delay:g} s")
    lines.append(f"  meaning     {entry.meaning}")
    lines.append(f"  next action {entry.next_action}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.list:
        rows = [e for e in catalog.entries() if args.family in (None, e.family)]
        if args.json:
            print(json.dumps([e.as_dict() for e in rows], indent=2))
        else:
            for e in rows:
                print(f"{e.family:<10} {e.code:<32} {e.title}")
        return 0
    if not args.codes:
        print("surefoot explain: name at least one CODE, or use --list", file=sys.stderr)
        return 2
    found: list[catalog.CatalogEntry] = []
    unknown: list[catalog.UnknownCodeError] = []
    for code in args.codes:
        matches = [e for e in catalog.find(code) if args.family in (None, e.family)]
        if matches:
            found.extend(matches)
        else:
            unknown.append(catalog.UnknownCodeError(code, catalog.suggest(code)))
    if args.json:
        out: dict[str, Any] = {"entries": [e.as_dict() for e in found]}
        if unknown:
            out["unknown"] = [
                {"code": redact(u.code), "suggestions": u.suggestions} for u in unknown
            ]
        print(json.dumps(out, indent=2))
    else:
        print("\n\n".join(_render(e) for e in found))
    for u in unknown:
        print(clean(f"surefoot explain: {u}"), file=sys.stderr)
    return 2 if unknown else 0
