"""Secret redaction: the one place that keeps API keys and auth headers out of text.

Every message surefoot builds from outside text (a server's error body, an exception's
``str()``) passes through :func:`redact` before it is stored on an error, logged or reported.

Two recognisers find a secret value; the value becomes ``[REDACTED]``, what names it stays:

* **Shape** - a value that announces itself by its format, wherever it stands: provider key
  prefixes (``sk-`` for OpenAI, Anthropic, OpenRouter and DeepSeek, ``AIza``, ``ya29.``,
  ``GOCSPX-``, ``AKIA``/``ASIA``, ``gsk_``, ``xai-``, ``pplx-``, ``hf_``, ``fw_``, ``r8_``,
  ``ghp_``/``github_pat_``...), Azure's 84-character keys (``JQQJ99`` at offset 52), JWTs
  (``eyJ...eyJ...``) and the password of a URL's ``user:password@``. The whole value goes,
  including the masked forms providers print themselves (``sk-proj-****...abcd``).
* **Label** - a value that is known to be secret only by the name before it: a label
  (``api_key``, ``x-api-key``, ``access_token``, ``client_secret``, ``password``,
  ``Authorization``, ``AccountKey``, ``OPENAI_API_KEY``... and, in a query string only,
  ``key``/``sig``) then a separator (``:`` or ``=``, with JSON/dict-repr quotes around the
  label and the value). An auth scheme (``Bearer``, ``Basic``, ``Token``) without a label
  counts too, but only before a value that looks like a credential: eight characters or more
  and not a plain word (digits, inner capitals, ``+/=._~``), or 24 characters or more.

What is deliberately *not* masked, so that ordinary messages reach the user intact:

* a scheme word before English: "every token exactly once", "Bearer of bad news",
  "Basic usage", and short values: "Bearer abc" (only ``Authorization: Bearer abc`` goes);
* bare ``key``/``token`` outside a query string ("key=value pairs", a JSON ``"token": " a"``
  of log-probabilities), and a label followed by a plain word with ``:`` ("api_key: missing");
* values with no label and no known shape: Mistral or Azure 32-hex keys, AWS secret access
  keys, shown alone, cannot be told from request ids. The client registers its own key
  (:func:`register_secret`), which is replaced first wherever it appears.

Speed: ASCII text is first searched for the few literal strings every match contains
(``_CANDIDATES``, looked for by ``_PROBE``/``_PROBES``); text with none of them is returned as
it is without running the full regex, which is what almost every error message does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["SECRET_HEADERS", "redact", "redact_headers", "register_secret"]

#: Header names whose values are never shown (compared lower-case).
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "ocp-apim-subscription-key",
        "x-auth-token",
        "cookie",
        "set-cookie",
        "openai-organization",
        "x-amz-security-token",
    }
)

_MASK = "[REDACTED]"

# Labels whose value is secret, before ``:`` or ``=`` (with JSON/dict-repr quotes): no word
# boundary is needed in front, so ``x-api-key``, ``OPENAI_API_KEY``, ``client_secret`` and
# ``aws_secret_access_key`` are all found by their last part; letter case is free.
_LABELS = (
    "authorization",  # also proxy-authorization
    r"api[_-]?(?:key|secret|token)",  # x-api-key, x-goog-api-key, apiKey, MISTRAL_API_KEY
    r"subscription[_-]?key",  # ocp-apim-subscription-key
    r"access[_-]?(?:key|token)",  # aws_secret_access_key, SecretAccessKey, SharedAccessKey
    r"secret(?:[_-]?key)?",  # client_secret, clientSecret, secret_key
    r"private[_-]?key",
    r"account[_-]?key",  # AccountKey in connection strings
    r"refresh[_-]?token",
    r"auth[_-]?token",  # also oauth_token
    r"session[_-]?token",
    r"security[_-]?token",  # x-amz-security-token
    r"bearer[_-]?token",
    r"passw(?:or)?d",
)
# Labels too common in plain text to take ``:``; they count before ``=`` only.
_EQ_LABELS = ("signature", "credential", "token")  # Signature=, X-Amz-Credential=, HF_TOKEN=


def _ci(label: str) -> str:
    """``label`` in any letter case, its first letter a class: the regex engine tests that
    class before entering the alternative, which keeps the search fast."""
    return f"[{label[0].upper()}{label[0]}](?i:{label[1:]})"


_QUOTE = r"""(?:\\?["'])?"""  # a quote, perhaps escaped (JSON inside a JSON string)
_VALUE = r"""[^\s"'`,;&)}<>]+"""  # unquoted: up to a space, a quote, a separator, a <placeholder>
_LABELLED = "|".join(
    [_ci(label) + _QUOTE + r"\s*[:=]" for label in _LABELS]
    + [_ci(label) + _QUOTE + r"\s*=" for label in _EQ_LABELS]
    + ["_KEY" + _QUOTE + r"\s*=", r"[?&;](?:key|sig)="]  # AZURE_OPENAI_KEY=, ?key=, &sig=
)
_SCHEME = f"{_ci('bearer')}|{_ci('basic')}|{_ci('token')}"

_PATTERNS = re.compile(
    rf"""
    # -- label recogniser: the label and its separator are kept, the value is masked --------
    (?:{_LABELLED}) \s* {_QUOTE}
    (?P<scheme>(?:{_SCHEME}|Digest)[ \t]+
      | AWS4-HMAC-SHA256[ \t]+Credential=)?
    (?P<value> (?<=")[^"\r\n]*[^"\\\r\n] | (?<=')[^'\r\n]*[^'\\\r\n] | {_VALUE} )

    # -- an auth scheme without a label: masked only if the value looks like a credential -----
  | (?P<bare>\b(?:{_SCHEME})[ \t]+)
    (?P<cred>[\w.~+/=-]{{7,}}[\w~+/=-])

    # -- shape recogniser: the whole match is the secret --------------------------------------
  | (?P<userinfo>://[^\s:/?#@"']*:) [^\s/?#"']+ @         # https://user:password@host
  | \b(?:
        sk-[\w*.-]{{11,}}[\w*]                             # sk-, sk-proj-, sk-ant-api03-, sk-or-v1-
      | AIza[\w-]{{20,}}                                    # Google API key
      | ya29\.[\w.-]{{18,}}[\w-]                            # Google OAuth access token
      | GOCSPX-[\w-]{{16,}}                                 # Google OAuth client secret
      | (?:AKIA|ASIA)[A-Z0-9]{{16}}\b        # AWS access key id
      | (?:gsk|hf|fw|gh[pousr])_[A-Za-z0-9]{{16,}}\b        # Groq, Hugging Face, Fireworks, GitHub
      | (?:github_pat|r8)_[A-Za-z0-9][\w-]{{15,}}           # GitHub fine-grained PAT, Replicate
      | (?:xai|pplx)-[A-Za-z0-9_]{{16,}}                    # xAI, Perplexity
      | eyJ[\w-]{{8,}}\.eyJ[\w-]{{8,}}\.[\w-]*              # JWT (its signature may be empty)
      | [A-Za-z0-9]{{52}}JQQJ99[A-Za-z0-9]{{26}}\b          # Azure AI services 84-char key
    )
    """,
    re.VERBOSE,
)

#: Every match of _PATTERNS contains one of these (lower-cased): each alternative above holds
#: one literally. Text containing none of them, and only ASCII, cannot match: the regex is
#: skipped. Keep this list in step with the alternatives.
_CANDIDATES = (
    "authorization",
    "key",
    "secret",
    # "token" only as a label or a scheme is followed by a quote, a space, ":" or "=": the
    # plural in "maximum context length is 8192 tokens" skips the regex
    *(f"token{c}" for c in " \t\n\r\f\v\x1c\x1d\x1e\x1f\"'\\:="),
    "passw",
    "sig",
    "credential",
    "bearer",
    "basic",
    "@",
    "sk-",
    "aiza",
    "ya29.",
    "gocspx-",
    "akia",
    "asia",
    "gsk_",
    "hf_",
    "fw_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "r8_",
    "xai-",
    "pplx-",
    "eyj",
    "jqqj99",
)

# Characters from the most to the least frequent in error messages, roughly.
_FREQUENCY = " etaoinsrhldcu.,mfpgwybv0123456789k:/-xjqz_=@"


def _probes(candidates: Iterable[str]) -> list[str]:
    """Regexes that together find any of ``candidates`` in lower-case text, fast.

    Each candidate is looked for around its rarest character; the candidates sharing that
    character make one regex that starts with it literally, so that the regex engine jumps
    from one occurrence of it to the next and tests the few candidates there only.
    """
    groups: dict[str, list[str]] = {}
    for word in candidates:
        i = max(range(len(word)), key=lambda j: _FREQUENCY.find(word[j]))
        before, anchor, after = word[:i], word[i], word[i + 1 :]
        look = f"(?<={re.escape(before + anchor)})" if before else ""
        groups.setdefault(anchor, []).append(look + re.escape(after))
    return [re.escape(c) + "(?:" + "|".join(g) + ")" for c, g in groups.items()]


# Short text: one regex for all the probes (its first characters let the engine skip the
# others); long text: one scan per probe, which is cheaper once the text passes ~1 KiB.
_PROBE = re.compile("|".join(_probes(_CANDIDATES)))
_PROBES = tuple(re.compile(p) for p in _probes(_CANDIDATES))
_LONG = 1024

# A plain word, perhaps capitalised or hyphenated: "exactly", "Authentication", "re-try".
_WORD = re.compile(r"[A-Za-z][a-z]*(?:[-'][a-z]+)*")

_registered: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember a secret (an API key a client was given) so that it is masked everywhere.

    A placeholder that is a plain word (``"test"``, ``"EMPTY"``, ``"ollama"``, as local servers
    are given) is not remembered: masking it would cut every word that contains it ("latest",
    "devtest"), and it protects nothing. A real key is never that: it is long, or mixes
    letters with digits or signs (and its shape is masked anyway)."""
    if value and (len(value) >= 16 or (len(value) >= 8 and not _WORD.fullmatch(value))):
        _registered.add(value)


#: Values that say no secret was given ("valid_token=None", "api_key=null"): kept as they are.
_NO_VALUE = frozenset(("none", "null", "nil", "undefined", "true", "false"))


def _looks_like_credential(value: str) -> bool:
    """Whether a value after a bare auth scheme is a credential rather than English."""
    return len(value) >= 24 or (len(value) >= 8 and not _WORD.fullmatch(value))


def _sub(match: re.Match[str]) -> str:
    if match.group("value") is not None:
        kept = match.group(0)[: match.start("value") - match.start()]
        value = match.group("value")
        if match.group("scheme") is None and kept.rstrip().endswith(":") and _WORD.fullmatch(value):
            return kept + _PATTERNS.sub(_sub, value)  # "api_key: missing": a word, not a key
        if value.rstrip(".").lower() in _NO_VALUE:
            return match.group(0)  # "valid_token=None.": the absence of a secret
        return kept + _MASK
    bare = match.group("bare")
    if bare is not None:
        cred = match.group("cred")
        if _looks_like_credential(cred):
            return bare + _MASK
        return bare + _PATTERNS.sub(_sub, cred)  # "Token limit": English, but look inside
    userinfo = match.group("userinfo")
    if userinfo is not None:
        return userinfo + _MASK + "@"  # the user name stays
    return _MASK


def redact(text: str) -> str:
    """``text`` with every known secret and anything shaped like a credential masked."""
    if not text:
        return text
    for secret in _registered:
        if secret in text:
            text = text.replace(secret, _MASK)
    if text.isascii():
        # Unicode case folding (the Kelvin sign for k, the long s for s) matters only outside
        # ASCII: such text takes the full regex.
        low = text.lower()
        if len(low) < _LONG:
            if _PROBE.search(low) is None:
                return text
        elif not any(probe.search(low) for probe in _PROBES):
            return text
    return _PATTERNS.sub(_sub, text)


def redact_headers(
    headers: Mapping[str, str] | Iterable[tuple[str, str]],
) -> dict[str, str]:
    """A copy of ``headers`` safe to record: secret headers masked, values redacted."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    out: dict[str, str] = {}
    for name, value in items:
        out[name] = _MASK if name.lower() in SECRET_HEADERS else redact(str(value))
    return out
