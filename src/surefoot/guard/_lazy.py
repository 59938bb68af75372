"""Two small helpers that keep ``import surefoot`` free of asyncio until async code runs.

- :class:`AsyncMethod`: a class attribute that imports the async driver on first access and
  then replaces itself with the driver's coroutine function (one import, then a plain method).
- :class:`AsyncFacade`: the coroutine face (``aadmit``, ``arecord``...) of a store that only
  has sync methods, such as the memory store, whose operations never block.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["AsyncFacade", "AsyncMethod"]


class AsyncMethod:
    """``attr = AsyncMethod("call", module)``: the function ``a<name>`` of ``module``, loaded on
    first access (``module`` defaults to the engine's async I/O)."""

    def __init__(self, name: str, module: str = "surefoot.guard._io_async") -> None:
        self._name = "a" + name
        self._module = module
        self._attr = ""

    def __set_name__(self, owner: type, attr: str) -> None:
        self._attr = attr

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        fn = getattr(importlib.import_module(self._module), self._name)
        if owner is not None and self._attr:
            setattr(owner, self._attr, fn)  # from now on a plain function on the class
        return fn if obj is None else fn.__get__(obj, owner)


class AsyncFacade:
    """Coroutine twins of a sync store's methods: ``await facade.aadmit(...)`` calls
    ``store.admit(...)``. For stores whose operations never block (in memory)."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __repr__(self) -> str:
        return f"AsyncFacade({self._store!r})"

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if not name.startswith("a"):
            raise AttributeError(name)
        fn = getattr(self._store, name[1:])

        async def call(*args: Any) -> Any:
            return fn(*args)

        self.__dict__[name] = call  # found directly from now on
        return call
