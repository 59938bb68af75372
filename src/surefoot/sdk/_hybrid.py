"""One exception, two types: the SDK's own and surefoot's (:func:`hybrid`).

A wrapped SDK client raises what the SDK would have raised — ``openai.RateLimitError``,
``anthropic.APIStatusError``, ``openai.APITimeoutError``... — so the ``except`` clauses already
written against the SDK keep working, and the same object is also surefoot's typed error
(``surefoot.RateLimitError``, ``surefoot.RunTimeoutError``...), so code written for surefoot
catches it and reads ``kind``, ``retryable``, ``problem_details``, ``context`` and ``attempts``.

Where both types define an attribute, the SDK's meaning wins (``code``, ``message``,
anthropic's ``error_code``...): code written against the SDK must see what the SDK documents.
surefoot's whole error stays available as ``err.surefoot`` (its catalog code is
``err.surefoot.code``, also ``err.problem_details.error_code``). ``str(err)`` is the SDK's
message, with any registered secret (the wrapped client's API key) masked, as in every surefoot
error, and so is the SDK's ``body``. The hybrid classes are made once per pair of types and
pickle by their two bases, without the live ``request`` and ``response`` (the request carries
the Authorization header).
"""

from __future__ import annotations

from typing import Any

from surefoot._redact import redact
from surefoot.errors import SurefootError

__all__ = ["hybrid"]

_CLASSES: dict[tuple[type[BaseException], type[SurefootError]], type[BaseException]] = {}


def _own(name: str) -> property:
    return property(lambda self: self.__dict__.get(name), doc=f"The SDK's ``{name}``.")


def _rebuild(
    sdk_type: type[BaseException], sf_type: type[SurefootError], args: tuple[Any, ...]
) -> Any:
    cls = _class(sdk_type, sf_type, ())
    err = cls.__new__(cls)
    err.args = args
    return err


#: Live HTTP objects: not pickled (the request carries the Authorization header).
_UNPICKLED = ("request", "response")


def _reduce(self: BaseException) -> tuple[Any, ...]:
    sdk_type, sf_type = type(self).__bases__
    state = {k: (None if k in _UNPICKLED else v) for k, v in self.__dict__.items()}
    return _rebuild, (sdk_type, sf_type, self.args), state


def _masked(value: Any, depth: int = 0) -> Any:
    """``value`` (a decoded JSON body) with every registered secret masked in its strings."""
    if isinstance(value, str):
        return redact(value)
    if depth > 20:
        return value
    if isinstance(value, dict):
        return {k: _masked(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, depth + 1) for v in value]
    return value


def _class(
    sdk_type: type[BaseException], sf_type: type[SurefootError], sdk_names: tuple[str, ...]
) -> type[BaseException]:
    key = (sdk_type, sf_type)
    cls = _CLASSES.get(key)
    if cls is None:
        ns: dict[str, Any] = {
            "__module__": sdk_type.__module__,
            "__qualname__": sdk_type.__qualname__,
            "__doc__": f"{sdk_type.__module__}.{sdk_type.__qualname__} raised through surefoot: "
            f"also a surefoot.{sf_type.__qualname__}.",
            "__str__": BaseException.__str__,
            "__repr__": lambda self: f"{type(self).__qualname__}({BaseException.__str__(self)!r})",
            "__reduce__": _reduce,
        }
        cls = type(sdk_type.__name__, (sdk_type, sf_type), ns)
        _CLASSES[key] = cls
    # An SDK attribute that a surefoot property would shadow (anthropic's error_code): the
    # SDK's value wins, read from the instance.
    for name in sdk_names:
        if isinstance(getattr(sf_type, name, None), property) and name not in cls.__dict__:
            setattr(cls, name, _own(name))
    return cls


def hybrid(sdk_err: BaseException, sf_err: SurefootError) -> BaseException:
    """``sdk_err`` and ``sf_err`` as one exception of both types (see the module docstring)."""
    state = dict(sdk_err.__dict__)
    for name, value in state.items():  # a server may echo the key back (message, body...)
        if isinstance(value, (str, dict, list)):
            state[name] = _masked(value)
    args = tuple(redact(a) if isinstance(a, str) else a for a in sdk_err.args)
    cls = _class(type(sdk_err), type(sf_err), tuple(state))
    err = cls.__new__(cls, *args)
    err.args = args
    notes = [*getattr(sdk_err, "__notes__", ()), *getattr(sf_err, "__notes__", ())]
    state.pop("__notes__", None)
    err.__dict__.update({k: v for k, v in sf_err.__dict__.items() if k != "__notes__"})
    # surefoot's problem details are fixed now, from surefoot's own fields.
    err.__dict__["_problem"] = sf_err.problem_details
    err.__dict__.update(state)
    err.__dict__["surefoot"] = sf_err
    err.__cause__ = sf_err.__cause__ if sf_err.__cause__ is not None else sdk_err.__cause__
    if notes:
        err.__notes__ = notes  # a list of its own: the two errors' lists stay as they are
    return err
