"""Knowledge sources an agent depends on, checked before a run starts.

A source is a file, a directory, or a callable you supply (one that fetches a URL, queries a
store...). :meth:`KnowledgeSource.check` raises :class:`~surefoot.KnowledgeNotReadyError` with:

- ``MISSING``: the path does not exist, or the callable returned ``None``;
- ``EMPTY``: an empty (or whitespace-only) file, a directory without a non-empty file, a
  callable that returned empty text;
- ``UNREADABLE``: permission denied, a directory given as a file (or the reverse), bytes that
  do not decode, a callable that raised (its exception is the cause) or returned something
  that is not text.

surefoot never fetches a URL itself: pass a callable that does.
"""

from __future__ import annotations

import codecs
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from surefoot.errors import KnowledgeNotReadyError, KnowledgeProblem

__all__ = ["KnowledgeSource", "SourceKind"]

SourceKind = Literal["file", "directory", "callable"]
_CHUNK: Final = 1 << 16
_MAX_FILES: Final = 10_000
_MISSING, _EMPTY, _UNREADABLE = (
    KnowledgeProblem.MISSING,
    KnowledgeProblem.EMPTY,
    KnowledgeProblem.UNREADABLE,
)


@dataclass(frozen=True, slots=True)
class KnowledgeSource:
    """One source: ``source`` (a path or a callable), its ``name`` in errors, its ``kind``."""

    source: str | os.PathLike[str] | Callable[[], Any]
    name: str
    kind: SourceKind
    encoding: str = "utf-8"

    @classmethod
    def create(
        cls,
        source: str | os.PathLike[str] | Callable[[], Any],
        *,
        name: str | None = None,
        kind: SourceKind | None = None,
        encoding: str = "utf-8",
    ) -> KnowledgeSource:
        codecs.lookup(encoding)  # an unknown encoding fails here, at declaration
        if callable(source) and not isinstance(source, (str, os.PathLike)):
            if kind not in (None, "callable"):
                raise ValueError(f"a callable knowledge source has kind 'callable', not {kind!r}")
            label = name or getattr(source, "__name__", None) or type(source).__name__
            return cls(source, label, "callable", encoding)
        if not isinstance(source, (str, os.PathLike)):
            raise TypeError(
                "a knowledge source is a file or directory path, or a callable returning text; "
                f"got {type(source).__name__}"
            )
        text = os.fspath(source)
        if "://" in text:
            raise ValueError(
                f"knowledge source {text!r} looks like a URL; surefoot does not fetch URLs, "
                "so pass a callable that fetches it and returns its text"
            )
        if kind is None:
            kind = "directory" if Path(text).is_dir() else "file"
        if kind not in ("file", "directory"):
            raise ValueError(f"a path knowledge source is a 'file' or a 'directory', not {kind!r}")
        return cls(source, name or text, kind, encoding)

    # -- checks ---------------------------------------------------------------------------------

    def _error(
        self, problem: KnowledgeProblem, why: str, host: str | None
    ) -> KnowledgeNotReadyError:
        return KnowledgeNotReadyError(
            f"knowledge source {self.name!r} is {problem.value.lower()}: {why}",
            host=host,
            source=self.name,
            problem=problem,
        )

    def check(self, host: str | None = None) -> None:
        """Raise :class:`~surefoot.KnowledgeNotReadyError` unless the source is ready.

        A callable that returns an awaitable needs :meth:`acheck`.
        """
        if self.kind == "callable":
            assert callable(self.source)
            value = self._call(host)
            if inspect.isawaitable(value):
                if inspect.iscoroutine(value):
                    value.close()
                raise TypeError(
                    f"knowledge source {self.name!r} is async; use await agent.acheck_knowledge()"
                )
            self._check_value(value, host)
        elif self.kind == "directory":
            self._check_directory(host)
        else:
            self._check_file(Path(os.fspath(self.source)), host)  # type: ignore[arg-type]

    async def acheck(self, host: str | None = None) -> None:
        """:meth:`check`, awaiting a callable's awaitable result."""
        if self.kind != "callable":
            self.check(host)
            return
        value = self._call(host)
        if inspect.isawaitable(value):
            try:
                value = await value
            except Exception as exc:
                raise self._error(
                    _UNREADABLE, f"it raised {type(exc).__name__}: {exc}", host
                ) from exc
        self._check_value(value, host)

    def _call(self, host: str | None) -> Any:
        assert callable(self.source)
        try:
            return self.source()
        except Exception as exc:
            raise self._error(_UNREADABLE, f"it raised {type(exc).__name__}: {exc}", host) from exc

    def _check_value(self, value: Any, host: str | None) -> None:
        if value is None:
            raise self._error(_MISSING, "the callable returned None", host)
        if isinstance(value, (bytes, bytearray)):
            try:
                value = bytes(value).decode(self.encoding)
            except UnicodeDecodeError as exc:
                raise self._error(_UNREADABLE, f"not {self.encoding} text: {exc}", host) from exc
        if not isinstance(value, str):
            raise self._error(
                _UNREADABLE, f"the callable returned a {type(value).__name__}, not text", host
            )
        if not value.strip():
            raise self._error(_EMPTY, "the callable returned empty text", host)

    def _check_file(self, path: Path, host: str | None) -> bool:
        """Raise unless ``path`` is a readable file; return whether it has non-blank text."""
        if not os.path.lexists(path):
            raise self._error(_MISSING, f"{str(path)!r} does not exist", host)
        try:
            with open(path, "rb") as f:
                decoder = codecs.getincrementaldecoder(self.encoding)()
                size = 0
                blank = True
                while True:
                    chunk = f.read(_CHUNK)
                    size += len(chunk)
                    text = decoder.decode(chunk, final=not chunk)
                    blank = blank and not text.strip()
                    if not chunk:
                        break
        except UnicodeDecodeError as exc:
            raise self._error(
                _UNREADABLE, f"{str(path)!r} is not {self.encoding} text: {exc}", host
            ) from exc
        except OSError as exc:  # permission denied, a directory, a dangling link...
            why = f"{str(path)!r} cannot be read: {type(exc).__name__}: {exc.strerror or exc}"
            raise self._error(_UNREADABLE, why, host) from exc
        if self.kind == "file" and blank:
            what = "is an empty file" if size == 0 else "holds only whitespace"
            raise self._error(_EMPTY, f"{str(path)!r} {what}", host)
        return not blank

    def _check_directory(self, host: str | None) -> None:
        root = Path(os.fspath(self.source))  # type: ignore[arg-type]
        if not os.path.lexists(root):
            raise self._error(_MISSING, f"{str(root)!r} does not exist", host)
        try:
            files: list[Path] = []
            for dirpath, dirnames, filenames in os.walk(root, onerror=_raise):
                dirnames.sort()
                files.extend(Path(dirpath, n) for n in sorted(filenames))
                if len(files) >= _MAX_FILES:
                    break
        except OSError as exc:
            why = f"{str(root)!r} cannot be listed: {type(exc).__name__}: {exc.strerror or exc}"
            raise self._error(_UNREADABLE, why, host) from exc
        has_text = False
        for path in files[:_MAX_FILES]:
            has_text = self._check_file(path, host) or has_text
        if not has_text:
            what = "holds no file" if not files else "holds only empty files"
            raise self._error(_EMPTY, f"directory {str(root)!r} {what}", host)


def _raise(exc: OSError) -> None:
    raise exc
