"""``surefoot classify``: what a failed call means, and whether to retry it.

One failure from the options (``--status``, repeated ``--header 'name: value'``, ``--body``
text or ``@file``, else the body from stdin), printed for a person or, with ``--json``, as one
JSON object. ``--jsonl [FILE]`` reads one failure per line (``{"status": ..., "headers":
{...}, "body": ..., "provider": ...}``) from FILE or stdin and writes one JSON verdict per
line, in order, as it goes; a line that cannot be read gives a verdict with an ``"error"``
member instead of stopping the run.

``--explain`` adds which rule decided the kind (the classifier's
``err.context.metadata["classified_by"]``, e.g. ``code=unsupported_parameter`` or ``message
matched 'does not support' -> capability_mismatch``): a ``decided by`` line in the text
output, a ``"classified_by"`` member in ``--json`` and ``--jsonl`` verdicts.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from surefoot import catalog
from surefoot._classify import classify, ratelimit_of
from surefoot._classify._http import unknown_unless_named
from surefoot.cli._out import clean, safe, say
from surefoot.errors import SurefootError

__all__ = ["classified_by", "classify_line", "register", "run", "run_jsonl", "verdict"]


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "classify",
        help="classify a failed LLM call: kind, class, retryable",
        description="Classify one failed call (status, headers, body) or many with --jsonl.",
    )
    p.add_argument("--status", type=int, default=None, help="HTTP status; omit for transport")
    p.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="a response header (repeat for more)",
    )
    p.add_argument("--body", default=None, help="the body as text, or @FILE; default stdin")
    p.add_argument("--provider", default=None, help="provider hint: openai, anthropic, ...")
    p.add_argument("--model", default=None, help="the model that was called")
    p.add_argument("--in-stream", action="store_true", help="the failure arrived mid-stream")
    p.add_argument(
        "--explain",
        action="store_true",
        help="also print which field or phrase decided the kind (classified_by)",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON object")
    out.add_argument(
        "--jsonl",
        nargs="?",
        const="-",
        default=None,
        metavar="FILE",
        help="read failures as JSON lines from FILE (or stdin), write one verdict per line",
    )
    p.set_defaults(handler=run)


def classified_by(err: SurefootError) -> str:
    """Which rule decided ``err``'s kind, as the classifier recorded it ("" if it did not)."""
    value = err.context.metadata.get("classified_by")
    return value if isinstance(value, str) else ""


def verdict(err: SurefootError, *, explain: bool = False) -> dict[str, Any]:
    """The JSON verdict for one classified error; ``explain`` adds ``classified_by``."""
    ctx = err.context
    out: dict[str, Any] = {
        "kind": err.kind,
        "class": type(err).__name__,
        "error_code": err.error_code,
        "code": err.code,
        "retryable": err.retryable,
        "retry_after_s": err.retry_after,
        "provider": ctx.metadata.get("provider") or getattr(err, "provider", None),
        "message": err.message,
        "status": ctx.http_status,
        "request_id": ctx.request_id,
    }
    model = getattr(err, "model", None)
    if model:
        out["model"] = model
    rl = ratelimit_of(err)
    if rl is not None:
        out["ratelimit"] = rl.as_dict()
    if explain:
        out["classified_by"] = classified_by(err)
    return out


def _parse_headers(lines: Iterable[str]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for line in lines:
        name, sep, value = line.partition(":")
        if sep and name.strip():
            pairs.append((name.strip(), value.strip()))
    return pairs


def _read_body(arg: str | None) -> str | bytes:
    if arg is None:
        if sys.stdin.isatty():
            return ""
        return sys.stdin.buffer.read(1 << 24)
    if arg.startswith("@"):
        with open(arg[1:], "rb") as fh:
            return fh.read(1 << 24)
    return arg


def _explain(err: SurefootError, *, explain: bool = False) -> str:
    v = verdict(err)
    lines = [f"{v['kind']}  ({v['class']}, {v['error_code']}, code {v['code']})"]
    if explain:
        lines.append(f"  decided by  {classified_by(err) or 'n/a'}")
    if v["status"] is not None:
        lines.append(f"  status      {v['status']}")
    if v["provider"]:
        lines.append(f"  provider    {v['provider']}")
    lines.append(f"  message     {v['message']}")
    if err.retryable:
        wait = err.suggested_retry_delay
        source = "the server's hint" if err.retry_after is not None else "the default"
        lines.append(
            f"  retry       yes, after {wait:g} s ({source}), at most "
            f"{err.max_retry_attempts} times"
        )
    else:
        lines.append("  retry       no: repeating the same call cannot succeed")
    entry = catalog.best_entry(err.code)
    if err.kind == "unknown":
        # The catalog's UNKNOWN type is retryable; a failure the classifier cannot name is not
        # retried automatically, so its advice would contradict the line above.
        lines.append("  next action Read the message; pass --provider if you know the sender")
    elif entry is not None:
        lines.append(f"  next action {entry.next_action}")
    if v["request_id"]:
        lines.append(f"  request id  {v['request_id']}")
    if "ratelimit" in v:
        lines.append(f"  rate limits {json.dumps(v['ratelimit'])}")
    return "\n".join(lines)


def classify_line(line: str, *, explain: bool = False) -> dict[str, Any]:
    """One ``--jsonl`` input line to its verdict; an ``"error"`` verdict for a bad line."""
    try:
        item = json.loads(line)
    except (ValueError, RecursionError) as exc:
        return {"error": f"line is not JSON: {str(exc)[:200]}"}
    if not isinstance(item, dict):
        return {"error": f"line is a JSON {type(item).__name__}, expected an object"}
    status = item.get("status")
    if status is not None and (isinstance(status, bool) or not isinstance(status, int)):
        return {"error": f"status must be an integer or null, got {status!r:.40}"}
    if status is not None and not 100 <= status <= 599:
        return {"error": f"status {status} is not an HTTP status (100 to 599) or null"}
    provider = item.get("provider")
    model = item.get("model")
    err = classify(
        status,
        item.get("headers") if isinstance(item.get("headers"), (dict, list)) else None,
        item.get("body"),
        provider=provider if isinstance(provider, str) else None,
        model=model if isinstance(model, str) else None,
        in_stream=item.get("in_stream") is True,
    )
    out = verdict(err, explain=explain)
    if "id" in item and isinstance(item["id"], (str, int)):
        out = {"id": item["id"], **out}
    return out


def run_jsonl(src: TextIO, dst: TextIO, *, explain: bool = False) -> int:
    """Verdicts for every line of ``src`` written to ``dst``; returns how many lines failed."""
    bad = 0
    dumps = json.dumps
    write = dst.write
    for raw in src:
        line = raw.strip()
        if not line:
            continue
        try:
            out = classify_line(line, explain=explain)
        except Exception as exc:  # pragma: no cover - classify never raises
            out = {"error": f"{type(exc).__name__}: {exc}"}
        if "error" in out:
            bad += 1
        write(safe(dumps(out, ensure_ascii=False, default=str), dst) + "\n")
    dst.flush()
    return bad


def run(args: argparse.Namespace) -> int:
    if args.jsonl is not None:
        if args.jsonl == "-":
            bad = run_jsonl(_stdin_text(), sys.stdout, explain=args.explain)
        else:
            try:
                fh = open(args.jsonl, encoding="utf-8", errors="replace")  # noqa: SIM115
            except OSError as exc:
                reason = exc.strerror or type(exc).__name__
                print(
                    clean(f"surefoot classify: cannot read --jsonl {args.jsonl}: {reason}"),
                    file=sys.stderr,
                )
                return 2
            with fh:
                try:
                    bad = run_jsonl(fh, sys.stdout, explain=args.explain)
                except OSError as exc:
                    reason = exc.strerror or type(exc).__name__
                    print(
                        safe(f"surefoot classify: cannot read --jsonl {args.jsonl}: {reason}"),
                        file=sys.stderr,
                    )
                    return 2
        return 1 if bad else 0
    if args.status is not None and not 100 <= args.status <= 599:
        print(
            f"surefoot classify: --status {args.status} is not an HTTP status; give one "
            "from 100 to 599, or omit it for a failure with no response",
            file=sys.stderr,
        )
        return 2
    try:
        body = _read_body(args.body)
    except OSError as exc:
        print(clean(f"surefoot classify: cannot read the body: {exc}"), file=sys.stderr)
        return 2
    if args.status is None and not args.header and not body:
        print(
            "surefoot classify: nothing to classify; give --status, --header or --body, "
            "pipe a body on stdin, or use --jsonl FILE",
            file=sys.stderr,
        )
        return 2
    err = classify(
        args.status,
        _parse_headers(args.header),
        body,
        provider=args.provider,
        model=args.model,
        in_stream=args.in_stream,
    )
    if args.status is None and not args.header:
        # a pasted message with no status is not known to be a lost connection: words no
        # rule knows stay unknown here rather than a transport failure advised to retry
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        err = unknown_unless_named(err, text)
    if args.json:
        say(json.dumps(verdict(err, explain=args.explain), ensure_ascii=False, default=str))
    else:
        say(_explain(err, explain=args.explain))
    return 0


def _stdin_text() -> TextIO:
    """stdin as text that never fails to decode (bad UTF-8 becomes U+FFFD)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:
        return sys.stdin
    return io.TextIOWrapper(buffer, encoding="utf-8", errors="replace")
