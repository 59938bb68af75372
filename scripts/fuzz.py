"""Coverage-guided fuzzing (atheris, libFuzzer) of the parsers that read what a server sends.

Usage::

    python scripts/fuzz.py TARGET [libFuzzer flags]     # e.g. classify -runs=5000
    python scripts/fuzz.py all -max_total_time=60         # every target in turn

Targets: ``classify``, ``inspect``, ``event``, ``ratelimit``, ``problem``, ``sse``. Each must
never raise (``sse``: only :class:`surefoot.sse.SSEProtocolError`); an exception that escapes is
a crash, and libFuzzer exits non-zero with the input that caused it. The hypothesis properties
of ``tests/reliability`` run in every CI build; this runs in ``make reliability`` (and briefly
in CI through ``tests/reliability/test_atheris.py``) where atheris installs.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import atheris

with atheris.instrument_imports():
    import surefoot
    from surefoot.problem import ProblemDetails
    from surefoot.sse import SSEDecoder, SSEProtocolError


def _headers(fdp: atheris.FuzzedDataProvider) -> dict[str, str]:
    names = (
        "retry-after",
        "retry-after-ms",
        "x-ratelimit-remaining-requests",
        "x-ratelimit-reset-requests",
        "anthropic-ratelimit-requests-reset",
        "content-type",
        "x-should-retry",
        "x-request-id",
        "ratelimit",
        "ratelimit-policy",
    )
    out: dict[str, str] = {}
    for _ in range(fdp.ConsumeIntInRange(0, 6)):
        out[names[fdp.ConsumeIntInRange(0, len(names) - 1)]] = fdp.ConsumeUnicodeNoSurrogates(40)
    return out


def classify(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    status = fdp.ConsumeIntInRange(0, 700)
    headers = _headers(fdp)
    provider = (None, "openai", "anthropic", "google", "bedrock")[fdp.ConsumeIntInRange(0, 4)]
    body = fdp.ConsumeBytes(fdp.remaining_bytes())
    err = surefoot.classify(status or None, headers, body, provider=provider)
    assert isinstance(err, surefoot.SurefootError)


def inspect(data: bytes) -> None:
    surefoot.inspect_response(data)


def event(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    name = fdp.ConsumeUnicodeNoSurrogates(20)
    surefoot.classify_event(name, fdp.ConsumeBytes(fdp.remaining_bytes()))


def ratelimit(data: bytes) -> None:
    surefoot.parse_ratelimit_headers(_headers(atheris.FuzzedDataProvider(data)))


def problem(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    base = fdp.ConsumeUnicodeNoSurrogates(30) if fdp.ConsumeBool() else None
    ProblemDetails.try_parse(fdp.ConsumeBytes(fdp.remaining_bytes()), base_uri=base)


def sse(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    decoder = SSEDecoder(max_event_bytes=fdp.ConsumeIntInRange(1, 4096))
    try:
        while fdp.remaining_bytes():
            decoder.feed(fdp.ConsumeBytes(fdp.ConsumeIntInRange(1, 64)))
        decoder.flush()
    except SSEProtocolError:
        pass


TARGETS: dict[str, Callable[[bytes], None]] = {
    "classify": classify,
    "inspect": inspect,
    "event": event,
    "ratelimit": ratelimit,
    "problem": problem,
    "sse": sse,
}


def main(argv: list[str]) -> int:
    if not argv or (argv[0] not in TARGETS and argv[0] != "all"):
        print(f"usage: fuzz.py {{{','.join(TARGETS)},all}} [libFuzzer flags]", file=sys.stderr)
        return 2
    if argv[0] == "all":  # each target in its own process: libFuzzer runs one per process
        for name in TARGETS:
            code = subprocess.call([sys.executable, __file__, name, *argv[1:]])
            if code:
                return code
        return 0
    atheris.Setup([sys.argv[0], *argv[1:]], TARGETS[argv[0]])
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
