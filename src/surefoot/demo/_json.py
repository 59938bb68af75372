"""The ``--json`` document: one JSON object for machines.

Top level: ``surefoot`` (version), ``mode`` (``"fault-server"`` or ``"endpoint"``),
``base_url``, ``style``, ``passed`` (bool), ``wall_time`` (s), ``summary`` (``calls``,
``attempts``, ``retries``, ``waited``, ``breaker_saved``, ``server_requests``, ``steps_passed``,
``steps_failed``, ``steps_skipped``) and ``steps``: each with ``key``, ``title``, ``status``
(``passed``/``failed``/``skipped``), ``checks`` (``expect``, ``ok``, ``observed``),
``attempts`` (``t_start``, ``t_end``, ``model``, ``attempt``, ``status``, ``error_code``,
``code``, ``kind``, ``decision``, ``reason``, ``wait``, ``outcome``) and ``marks`` (tool calls,
breaker state changes). Never holds an API key.
"""

from __future__ import annotations

import json

from surefoot._redact import redact
from surefoot.demo._records import DemoResult

__all__ = ["SCHEMA_VERSION", "to_json"]

#: Bumped when a field changes meaning or disappears (adding fields does not bump it).
SCHEMA_VERSION = 1


def to_json(result: DemoResult, *, indent: int | None = 2) -> str:
    """The JSON document of ``result`` (secrets redacted)."""
    doc = {"schema": SCHEMA_VERSION, **result.as_dict()}
    return redact(json.dumps(doc, indent=indent, ensure_ascii=False))
