"""The :class:`Kind` of any exception: :func:`kind_of`."""

from __future__ import annotations

from surefoot._classify._exceptions import classify_exception
from surefoot._classify._kinds import KINDS, Kind
from surefoot.errors import SurefootError

__all__ = ["kind_of"]


def kind_of(err: BaseException) -> Kind:
    """The :class:`Kind` of any exception: a surefoot error's ``kind``, or a classified one."""
    value = getattr(err, "kind", None)
    if isinstance(value, str) and value in KINDS:
        return Kind(value)
    if isinstance(err, SurefootError):
        return Kind.UNKNOWN
    return Kind(classify_exception(err).kind)
