"""How each SDK spells a failure: the exceptions a wrapped client raises (:class:`Family`).

The SDKs generated from an OpenAPI description by Stainless (``openai``, ``anthropic``,
``groq``...) share one shape: ``client._make_status_error_from_response(response)`` builds the
class the SDK raises for an HTTP error (``RateLimitError`` for a 429...), and the package has
``APIError``, ``APIConnectionError`` and ``APITimeoutError``. A failure surefoot gives up on is
raised as that SDK exception and surefoot's typed error at once (:func:`~surefoot.sdk._hybrid.
hybrid`). A mid-stream error event becomes what the SDK itself raises for one: Anthropic's
status error with the stream's 200, OpenAI's status-less ``APIError`` with the error object as
``body``. :data:`NO_FAMILY` (a transport plugged into another SDK) hands an error response back
to the SDK, which raises its own error, and raises surefoot's typed errors otherwise.
"""

from __future__ import annotations

import builtins
import importlib
import json
from typing import Any

from surefoot.errors import SurefootError
from surefoot.sdk._hybrid import hybrid

__all__ = ["NO_FAMILY", "Family"]


class Family:
    """The exceptions of one SDK package (``package``) for one client (bound by :meth:`bind`)."""

    __slots__ = ("_client", "_pkg", "package")

    def __init__(self, package: str | None) -> None:
        self.package = package
        self._pkg: Any = importlib.import_module(package) if package else None
        self._client: Any = None

    def bind(self, client: object) -> None:
        """The SDK client whose ``_make_status_error*`` methods build status errors."""
        self._client = client

    @property
    def raises_own_status_errors(self) -> bool:
        """``False`` when an error response goes back to the SDK to raise its own error."""
        return self._pkg is not None

    def status_error(self, err: SurefootError, response: Any) -> BaseException:
        """The error for an HTTP error response (``response`` fully read)."""
        client = self._client
        make = getattr(client, "_make_status_error_from_response", None)
        if make is None:
            return err
        try:
            sdk_err = make(response)
        except Exception:  # an SDK that changed its private API: surefoot's error still works
            return err
        return hybrid(sdk_err, err)

    def stream_error(self, err: SurefootError, response: Any, data: str) -> BaseException:
        """The error for an error event inside a 200 stream, as the SDK raises it."""
        pkg = self._pkg
        if pkg is None:
            return err
        try:
            body: Any = json.loads(data)
        except ValueError:
            body = data
        try:
            if self.package == "anthropic":
                sdk_err = self._client._make_status_error(f"{body}", body=body, response=response)
            else:
                error = body.get("error") if isinstance(body, dict) else None
                message = error.get("message") if isinstance(error, dict) else None
                if not isinstance(message, str) or not message:
                    message = "An error occurred during streaming"
                sdk_err = pkg.APIError(
                    message=message, request=response.request, body=error if error else body
                )
        except Exception:
            return err
        return hybrid(sdk_err, err)

    def transport_error(self, err: SurefootError, request: Any) -> BaseException:
        """The error for a failure with no response to show: a timeout (the deadline, a silent
        stream) as the SDK's ``APITimeoutError``, anything else as its ``APIConnectionError``."""
        pkg = self._pkg
        if pkg is None:
            return err
        try:
            if isinstance(err, builtins.TimeoutError) or err.kind == "timeout":
                sdk_err = pkg.APITimeoutError(request=request)
            else:
                sdk_err = pkg.APIConnectionError(message=err.message, request=request)
        except Exception:
            return err
        return hybrid(sdk_err, err)


#: No SDK known: error responses go back to the SDK, other failures raise surefoot's errors.
NO_FAMILY = Family(None)
