"""Generate the sync drivers from their async sources (httpcore's ``unasync``, with two markers).

Usage::

    python scripts/unasync.py           # rewrite every generated file
    python scripts/unasync.py --check   # exit 1, with a diff, when one is stale (CI runs this)

Each async source (``*_async.py``) is the only hand-written copy; its sync twin (``*_sync.py``)
is generated: ``async``/``await`` dropped, the names below mapped, then ``ruff format``. Two
markers, each on a line of its own, carry what truly differs between the two:

- ``# unasync: async-only`` ... ``# unasync: end``: lines kept in the async source only;
- ``# unasync: sync-only`` ... ``# unasync: end``: commented-out lines (``# code``) that the
  sync output uncomments, as written (no renames); the async source keeps them as comments.

A source line that ends with ``# unasync: drop`` is left out of the sync output.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "surefoot"

#: (async source, generated sync file), relative to src/surefoot.
FILES = [
    ("guard/_io_async.py", "guard/_io_sync.py"),
    ("guard/_driver_async.py", "guard/_driver_sync.py"),
    ("llm/_client_async.py", "llm/_client_sync.py"),
    ("agent/_drivers_async.py", "agent/_drivers_sync.py"),
    ("sdk/_transport_async.py", "sdk/_transport_sync.py"),
]

#: Whole-word renames, applied in this order after ``async``/``await`` are dropped.
NAMES = {
    # modules
    "_io_async": "_io_sync",
    "_driver_async": "_driver_sync",
    "_client_async": "_client_sync",
    "_drivers_async": "_drivers_sync",
    "_transport_async": "_transport_sync",
    "surefoot._backends import _async": "surefoot._backends import _sync",
    "surefoot.http._aiohttp": "surefoot.http._urllib3",
    # protocol methods and builtins
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    "__aiter__": "__iter__",
    "__anext__": "__next__",
    "StopAsyncIteration": "StopIteration",
    "anext": "next",
    "AsyncIterator": "Iterator",
    "AsyncIterable": "Iterable",
    # surefoot's own pairs
    "AsyncLLMClient": "LLMClient",
    "AsyncTransport": "SyncTransport",
    "AsyncStream": "SyncStream",
    "AiohttpTransport": "Urllib3Transport",
    "AsyncAttempts": "SyncAttempts",
    "AsyncDriver": "SyncDriver",
    "AsyncWatchedStream": "SyncWatchedStream",
    "handle_async_request": "handle_request",
    "aread": "read",
    "aattempts": "attempts",
    "aacquire": "acquire",
    "aadmit": "admit",
    "abreaker_call": "breaker_call",
    "acall": "call",
    "acall_with_record": "call_with_record",
    "aclose": "close",
    "adeposit": "deposit",
    "adrive": "drive",
    "aexecute_action": "execute_action",
    "afailed": "failed",
    "ainvoke": "invoke",
    "aobserve": "observe",
    "aon_success": "on_success",
    "aperform": "perform",
    "arecord": "record",
    "arecorded": "recorded",
    "arefill": "refill",
    "arelease": "release",
    "areport": "report",
    "arun": "run",
    "arl_acquire": "rl_acquire",
    "arl_observe": "rl_observe",
    "asleep": "sleep",
    "asnapshot": "snapshot",
    "aspend": "spend",
    "athrottle": "throttle",
    "atry_spend": "try_spend",
    "awrapper": "wrapper",
    "awrap": "wrap",
    "_astore": "store",
    "_arecorded": "_recorded",
    "_aadmit": "_admit",
    "_arecord": "_record",
    "_arelease": "_release",
    "_aattempt": "_attempt",
    "_agate": "_gate",
    "_arun": "_run",
    "_afailed": "_failed",
    "_ainvoke": "_invoke",
    "_adrive": "_drive",
    "_aperform": "_perform",
    "_astream": "_stream",
    "_ado": "_do",
    "_aloop": "_loop",
    "_allm": "_llm",
    "_asend": "_send",
    "_aexchange": "_exchange",
    "_aread": "_read",
    "_apeek": "_peek",
    "_apeek_loop": "_peek_loop",
    "_anext": "_next",
    "_afail": "_fail",
}

_ASYNC_ONLY = "# unasync: async-only"
_SYNC_ONLY = "# unasync: sync-only"
_END = "# unasync: end"
_DROP = "# unasync: drop"
_NAME_RE = re.compile(
    r"(?<!\w)(" + "|".join(re.escape(k) for k in sorted(NAMES, key=len, reverse=True)) + r")\b"
)
_AWAITABLE = re.compile(r"\bAwaitable\[([^\[\]]+(?:\[[^\[\]]*\])?)\]")


class MarkerError(Exception):
    pass


def _blocks(lines: list[str], path: str) -> list[tuple[str, bool]]:
    """The lines of the sync output, each with whether it still needs the renames (the
    lines of a sync-only block are sync code already: they are taken as written)."""
    out: list[tuple[str, bool]] = []
    mode: str | None = None
    for n, line in enumerate(lines, 1):
        mark = line.strip()
        if mark in (_ASYNC_ONLY, _SYNC_ONLY):
            if mode is not None:
                raise MarkerError(f"{path}:{n}: {mark!r} inside another marker block")
            mode = mark
            continue
        if mark == _END:
            if mode is None:
                raise MarkerError(f"{path}:{n}: {_END!r} without an opening marker")
            mode = None
            continue
        if mode == _ASYNC_ONLY:
            continue
        if mode == _SYNC_ONLY:
            stripped = line.lstrip(" ")
            indent = line[: len(line) - len(stripped)]
            if stripped.startswith("# "):
                out.append((indent + stripped[2:], False))
            elif stripped.rstrip() == "#":
                out.append(("", False))
            else:
                raise MarkerError(f"{path}:{n}: a sync-only line must be commented out (# code)")
            continue
        if line.rstrip().endswith(_DROP):
            continue
        out.append((line, True))
    if mode is not None:
        raise MarkerError(f"{path}: {mode!r} is never closed with {_END!r}")
    return out


def _line(line: str) -> str:
    line = re.sub(r"\basync def\b", "def", line)
    line = re.sub(r"\basync with\b", "with", line)
    line = re.sub(r"\basync for\b", "for", line)
    line = re.sub(r"\bawait ", "", line)
    line = _AWAITABLE.sub(r"\1", line)
    return _NAME_RE.sub(lambda m: NAMES[m.group(1)], line)


def transform(source: str, path: str, target: str) -> str:
    lines = _blocks(source.splitlines(), path)
    body = "\n".join(_line(line) if renamed else line for line, renamed in lines) + "\n"
    header = (
        f"# GENERATED from {path} by scripts/unasync.py: do not edit.\n"
        "# Edit the async source, then run `make generate` (CI fails when this file is stale).\n"
    )
    return _format(header + body, target)


def _format(text: str, target: str) -> str:
    ruff = Path(sys.executable).with_name("ruff")
    cmd = [str(ruff) if ruff.exists() else "ruff"]
    fixed = subprocess.run(
        [*cmd, "check", "--fix-only", "--quiet", "--stdin-filename", target, "-"],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    return subprocess.run(
        [*cmd, "format", "--quiet", "--stdin-filename", target, "-"],
        input=fixed or text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = 0
    only = [a for a in argv if not a.startswith("-")]
    for src, dst in FILES:
        if only and src not in only:
            continue
        source_path, target_path = SRC / src, SRC / dst
        want = transform(source_path.read_text(), f"src/surefoot/{src}", str(target_path))
        have = target_path.read_text() if target_path.exists() else ""
        if want == have:
            continue
        if check:
            stale += 1
            diff = difflib.unified_diff(
                have.splitlines(keepends=True),
                want.splitlines(keepends=True),
                f"src/surefoot/{dst} (committed)",
                f"src/surefoot/{dst} (generated)",
            )
            sys.stdout.writelines(diff)
        else:
            target_path.write_text(want)
            print(f"unasync: wrote src/surefoot/{dst}")
    if stale:
        print(f"unasync: {stale} generated file(s) are stale; run `make generate`")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
