"""What differs between the sync and the async drivers, and nothing else.

The drivers (``guard/_driver_async.py``, ``llm/_client_async.py``, ``agent/_drivers_async.py``,
``guard/_io_async.py``) are written once, for asyncio; ``scripts/unasync.py`` generates their
sync twins, which import :mod:`surefoot._backends._sync` where the async sources import
:mod:`surefoot._backends._async`. The two modules offer the same names:

- ``arm(when, clock)``: bound the current attempt by an absolute deadline (async: the task is
  cancelled at the deadline; sync: a null scope, since a sync call cannot be preempted: the
  callee bounds its own I/O with :func:`surefoot.time_left`);
- ``run_tools(jobs)``: a turn's tool calls, concurrently (async: ``asyncio.gather``, sync
  functions in threads; sync: a small thread pool);
- ``resolve(value, what)``: the value of a callback that may return an awaitable (async: awaited;
  sync: run to completion with ``asyncio.run`` when no event loop runs in this thread);
- ``call_blocking(fn, kwargs)``: a user function that may block (async: in a worker thread;
  sync: in place).
"""
