"""RFC 9457 problem details: parse ``application/problem+json`` leniently, render it back.

Consumer rules (RFC 9457 §3): every member is optional; a member of the wrong JSON type is
ignored as if absent; ``type`` defaults to ``about:blank``; relative ``type`` and ``instance``
resolve against a base URI when one is given; extension members are kept and round-trip
unchanged. The extensions surefoot understands (``error_code``, ``retryable``, ...) have typed
accessors that apply the same rule: a wrong type reads as ``None``.
"""

from __future__ import annotations

import builtins
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urljoin

if TYPE_CHECKING:
    from surefoot.errors import SurefootError

__all__ = ["MAX_PROBLEM_BYTES", "ProblemDetails", "ProblemDetailsError", "ProblemItem"]

#: The largest document :meth:`ProblemDetails.parse` accepts by default.
MAX_PROBLEM_BYTES = 1 << 20

_STANDARD = ("type", "title", "status", "detail", "instance")
ERROR_CATEGORIES = frozenset({"transient", "upstream", "integrity", "config"})


class ProblemDetailsError(ValueError):
    """The input is not a problem details document (not JSON, not an object, too large...)."""


def _resolve(base_uri: str, ref: str, member: str) -> str:
    """``ref`` resolved against ``base_uri``; :class:`ProblemDetailsError` when either is not a
    URI :func:`urllib.parse.urljoin` can split (``//[x``: an invalid IPv6 host)."""
    try:
        return urljoin(base_uri, ref)
    except (ValueError, TypeError) as exc:
        raise ProblemDetailsError(
            f"problem {member} {ref[:200]!r} cannot be resolved against {base_uri[:200]!r}: {exc}"
        ) from None


@dataclass(frozen=True, slots=True)
class ProblemItem:
    """One entry of ``errors[]``: ``message`` and ``details`` are required by the schema."""

    message: str
    details: str | None = None
    field: str | None = None
    ai_hints: tuple[str, ...] | None = None

    @classmethod
    def from_json(cls, value: object) -> ProblemItem | None:
        if not isinstance(value, Mapping):
            return None
        message = value.get("message")
        if not isinstance(message, str):
            return None
        details = value.get("details")
        fld = value.get("field")
        hints = value.get("ai_hints")
        hint_t: tuple[str, ...] | None = None
        if isinstance(hints, list):
            hint_t = tuple(h for h in hints if isinstance(h, str))
        elif isinstance(hints, str):
            hint_t = (hints,)
        return cls(
            message=message,
            details=details if isinstance(details, str) else None,
            field=fld if isinstance(fld, str) else None,
            ai_hints=hint_t,
        )


@dataclass(slots=True)
class ProblemDetails:
    """An RFC 9457 problem. ``extensions`` holds every non-standard member, untouched."""

    type: str = "about:blank"
    title: str | None = None
    status: int | None = None
    detail: str | None = None
    instance: str | None = None
    extensions: dict[str, Any] = field(default_factory=dict)
    #: ``"server"`` when parsed from a response, ``"catalog"`` when synthesized.
    source: Literal["server", "catalog", "local"] = "local"

    # -- parsing -----------------------------------------------------------------------------

    @classmethod
    def parse(
        cls,
        data: bytes | bytearray | str | Mapping[str, Any],
        *,
        base_uri: str | None = None,
        max_bytes: int = MAX_PROBLEM_BYTES,
    ) -> ProblemDetails:
        """Parse a problem document; raises :class:`ProblemDetailsError` if it is not one."""
        if isinstance(data, Mapping):
            obj: object = data
        else:
            if isinstance(data, (bytes, bytearray)):
                if len(data) > max_bytes:
                    raise ProblemDetailsError(
                        f"problem document is {len(data)} bytes, over the {max_bytes}-byte limit; "
                        "pass max_bytes= to accept larger ones"
                    )
                text = bytes(data).decode("utf-8", errors="replace")
            elif isinstance(data, str):
                if len(data) > max_bytes:
                    raise ProblemDetailsError(
                        f"problem document is {len(data)} characters, over the {max_bytes} limit; "
                        "pass max_bytes= to accept larger ones"
                    )
                text = data
            else:
                raise ProblemDetailsError(
                    f"expected bytes, str or a mapping, got {type(data).__name__}"
                )
            try:
                obj = json.loads(text.lstrip("\ufeff"))
            except RecursionError:
                raise ProblemDetailsError("problem document is nested too deeply") from None
            except ValueError as exc:
                raise ProblemDetailsError(f"problem document is not valid JSON: {exc}") from None
        if not isinstance(obj, Mapping):
            raise ProblemDetailsError(
                f"a problem document is a JSON object, got {type(obj).__name__}"
            )
        return cls.from_mapping(obj, base_uri=base_uri)

    @classmethod
    def try_parse(
        cls, data: bytes | bytearray | str | Mapping[str, Any], *, base_uri: str | None = None
    ) -> ProblemDetails | None:
        """Like :meth:`parse`, but ``None`` instead of an exception."""
        try:
            return cls.parse(data, base_uri=base_uri)
        except ProblemDetailsError:
            return None

    @classmethod
    def from_mapping(cls, obj: Mapping[str, Any], *, base_uri: str | None = None) -> ProblemDetails:
        ptype = obj.get("type")
        ptype = ptype if isinstance(ptype, str) and ptype else "about:blank"
        instance = obj.get("instance")
        instance = instance if isinstance(instance, str) else None
        if base_uri:
            if ptype != "about:blank":
                ptype = _resolve(base_uri, ptype, "type")
            if instance is not None:
                instance = _resolve(base_uri, instance, "instance")
        status = obj.get("status")
        if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
            status = None
        title = obj.get("title")
        detail = obj.get("detail")
        ext = {k: v for k, v in obj.items() if k not in _STANDARD}
        return cls(
            type=ptype,
            title=title if isinstance(title, str) else None,
            status=status,
            detail=detail if isinstance(detail, str) else None,
            instance=instance,
            extensions=ext,
            source="server",
        )

    # -- rendering ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON object: standard members first, then extensions unchanged."""
        out: dict[str, Any] = {"type": self.type}
        if self.title is not None:
            out["title"] = self.title
        if self.status is not None:
            out["status"] = self.status
        if self.detail is not None:
            out["detail"] = self.detail
        if self.instance is not None:
            out["instance"] = self.instance
        for k, v in self.extensions.items():
            out.setdefault(k, v)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    # -- typed extensions --------------------------------------------------------------------

    def _ext(self, name: str, typ: builtins.type | tuple[builtins.type, ...]) -> Any:
        value = self.extensions.get(name)
        if isinstance(value, bool) and typ is not bool:
            return None
        return value if isinstance(value, typ) else None

    @property
    def error_code(self) -> str | None:
        return self._ext("error_code", str)  # type: ignore[no-any-return]

    @property
    def retryable(self) -> bool | None:
        return self._ext("retryable", bool)  # type: ignore[no-any-return]

    @property
    def error_category(self) -> str | None:
        return self._ext("error_category", str)  # type: ignore[no-any-return]

    @property
    def owner_action_required(self) -> bool | None:
        return self._ext("owner_action_required", bool)  # type: ignore[no-any-return]

    @property
    def trace_id(self) -> str | None:
        return self._ext("trace_id", str)  # type: ignore[no-any-return]

    @property
    def span_id(self) -> str | None:
        return self._ext("span_id", str)  # type: ignore[no-any-return]

    @property
    def request_id(self) -> str | None:
        return self._ext("request_id", str)  # type: ignore[no-any-return]

    @property
    def retry_after_seconds(self) -> float | None:
        value = self._ext("retry_after_seconds", (int, float))
        if value is None or not math.isfinite(value) or value < 0:
            return None
        return float(value)

    @property
    def errors(self) -> tuple[ProblemItem, ...]:
        items = self.extensions.get("errors")
        if not isinstance(items, list):
            return ()
        parsed = (ProblemItem.from_json(i) for i in items)
        return tuple(p for p in parsed if p is not None)

    # -- from errors -------------------------------------------------------------------------

    @classmethod
    def from_error(cls, err: SurefootError) -> ProblemDetails:
        """Synthesize the problem an error stands for, from the catalog and its context."""
        from surefoot._codes import best_entry

        entry = best_entry(err.code)
        ctx = err.context
        ext: dict[str, Any] = {
            "error_code": err.code,
            "retryable": err.retryable,
            "surefoot_error": err.error_code,
            "kind": err.kind,
        }
        if entry is not None and entry.error_category is not None:
            ext["error_category"] = entry.error_category
        if err.retryable and err.suggested_retry_delay:
            ext["retry_after_seconds"] = err.suggested_retry_delay
        for name in ("trace_id", "span_id", "request_id"):
            value = getattr(ctx, name)
            if value is not None:
                ext[name] = value
        status = ctx.http_status if ctx.http_status is not None else (entry and entry.status)
        return cls(
            type=f"urn:surefoot:problem:{err.code}",
            title=entry.title if entry is not None else type(err).__name__,
            status=status or None,
            detail=err.message or (entry.meaning if entry is not None else None),
            extensions=ext,
            source="catalog",
        )
