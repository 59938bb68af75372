"""Turn what a user passes as ``store=`` into a store: a Redis URL or client becomes a
:class:`~surefoot.stores.RedisStore` (one per URL in a process, sharing its connection pool)."""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["resolve_store"]

_by_url: dict[str, Any] = {}
_lock = threading.Lock()


def resolve_store(store: Any) -> Any:
    """``store`` itself, or a :class:`RedisStore` for a URL (``"redis://..."``) or a redis-py
    client (namespace ``"default"``; build a :class:`RedisStore` yourself for other options)."""
    if isinstance(store, str):
        from surefoot.stores._redis import RedisStore

        with _lock:
            found = _by_url.get(store)
            if found is None:
                found = _by_url[store] = RedisStore.from_url(store)
        return found
    if type(store).__module__.split(".")[0] == "redis":
        from surefoot.stores._redis import RedisStore

        return RedisStore(store)
    return store
