"""Writing what a command prints, whatever the text holds.

Error messages go through :func:`clean`, which also masks anything shaped like a credential.

A body may carry a lone surrogate (``"\\ud800"`` from JSON, or bytes decoded with
``surrogateescape``) or characters the terminal's encoding lacks; printing it as is raises
``UnicodeEncodeError``. :func:`safe` turns such characters into ``\\uXXXX`` escapes (inside a
JSON string, the same escape JSON uses), :func:`say` prints a line through it.
"""

from __future__ import annotations

import sys
from typing import TextIO

__all__ = ["clean", "safe", "say"]


def safe(text: str, stream: TextIO | None = None) -> str:
    """``text`` with every character ``stream`` cannot encode written as a backslash escape."""
    encoding = getattr(stream if stream is not None else sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:  # pragma: no cover - an unknown encoding name
        return text.encode("ascii", "backslashreplace").decode("ascii")
    return text


def clean(text: str, stream: TextIO | None = None) -> str:
    """``text`` fit for an error message: credentials masked (a key pasted into an argument or
    a file is never printed back), then :func:`safe` for ``stream`` (default stderr)."""
    from surefoot._redact import redact

    return safe(redact(text), stream if stream is not None else sys.stderr)


def say(text: str, stream: TextIO | None = None) -> None:
    """Print ``text`` (and a newline) on ``stream`` (default stdout), never failing to encode."""
    out = stream if stream is not None else sys.stdout
    print(safe(text, out), file=out)
