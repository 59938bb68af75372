"""The conformance corpora: every line classified with the right kind and retryability.

``classify_corpus.jsonl`` must stay at 100%, line by line. ``classify_corpus_2026.jsonl``
(described in ``classify_corpus_2026.md``) is split: ``tune`` (the round-1 rules were written
against it) and ``heldout`` (round 1's held-out set, now tuning data too) are checked line by
line, and so are ``heldout2`` to ``heldout22`` (rounds 2 to 23's held-out sets, read in the
rounds after); ``heldout23`` is the next fresh held-out set no rule was written against, scored
only in aggregate (no per-line test, no failing case printed) so the score stays an honest
estimate of accuracy on failures the rules have not seen.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path
from typing import Any

import pytest

from surefoot import KINDS, classify

CORPUS = Path(__file__).parent / "data" / "classify_corpus.jsonl"
CORPUS_2026 = Path(__file__).parent / "data" / "classify_corpus_2026.jsonl"
THRESHOLD = 0.97
HELDOUT_THRESHOLD = 0.97
HELDOUT_MIN = 50
#: A split's name: ``tune``, then ``heldout``, ``heldout2``, ``heldout3``... one per round.
SPLIT_NAME = re.compile(r"tune|heldout\d*")
#: The newest held-out split: scored once, in aggregate, never read (see
#: test_2026_fresh_heldout_accuracy). Every other ``heldoutN`` (N >= 2) has been read.
FRESH_SPLIT = "heldout23"


def _rows(path: Path = CORPUS) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


ROWS = _rows()
ROWS_2026 = _rows(CORPUS_2026)
TUNE = [r for r in ROWS_2026 if r.get("split") == "tune"]
# Round 1's held-out split. It scored 56/73 (76.7%) when it was honestly held out (measured
# once, after the round-1 rules were frozen); round 2 read it, so it is tuning data now and
# checked line by line like ``tune``. It no longer estimates anything: ``heldout3`` does.
HELDOUT1 = [r for r in ROWS_2026 if r.get("split") == "heldout"]
#: Read held-out lines whose label we doubt and which no rule was bent to fit (see
#: classify_corpus_2026.md, "Labels we doubt"): checked to stay what they are.
DOUBTED = {
    # an image sent to a text-only model, in the words of an image-preprocessing failure
    # ("please provide valid images"): the label says capability, the text says request
    "fireworks-400-text-model-cannot-preprocess-image": ("invalid_request", False),
    # heldout7 (round 8): labels decided by context the failure does not carry -- the audit
    # read each source; a reader of the failure alone labels them as the classifier does
    # the words of two capability lines (heldout2, heldout5); the audit knew this beta name
    # never existed
    "anthropic-unexpected-beta-header-computer-use-400": ("capability_mismatch", False),
    # "Unknown parameter: 'tool_resources'": that a newer API version has it is not in the body
    "azure-assistants-tool-resources-unknown-old-api-version": ("invalid_request", False),
    # "The model ... does not exist for router `ocr`": that a content part was routed there is
    # not in the body
    "mistral-document-url-on-chat-model-ocr-router-404": ("model_not_found", False),
    # heldout8 (round 9): the same body as heldout's openrouter-402-in-flight-budget-exhausted
    # (rate_limit there: a hold that clears when in-flight requests settle); both retryable
    "openrouter-in-flight-budget-exhausted-402": ("rate_limit", True),
    # a validator's union errors for response_format; that json_object was sent, and that
    # Perplexity lacks it, is in the source, not in the body
    "perplexity-response-format-union-validation-400": ("invalid_request", False),
    # heldout10 (round 11): the same message was dropped as ambiguous by round 5's audit
    # (a per-model limit or a content-format rule: both read the same)
    "xai-single-text-element-per-message": ("invalid_request", False),
    # a validator's role enum; that the roles sent were tool calls Perplexity lacks is in the
    # source, not in the body
    "perplexity-tool-role-messages-rejected": ("invalid_request", False),
    # the words of heldout2's openrouter-sse-midstream-upstream-worker-limit (model_overloaded
    # there); both retryable
    "proxy-fastllm-200-upstream-concurrency-limit": ("model_overloaded", True),
    # heldout11 (round 12): Bedrock's "Conversation blocks and tool use blocks cannot be
    # provided in the same turn", which heldout2 and heldout6 hold as invalid_request twice
    "bedrock-mistral-conversation-and-tool-use-blocks-same-turn": ("invalid_request", False),
    # a URL the gateway does not serve ("Unsupported endpoint: embeddings"): the corpus's
    # wrong-URL lines are invalid_request (the 'no route matched' row); both not retryable
    "proxy-helicone-unsupported-endpoint-400": ("invalid_request", False),
    # a bare "bad request": that Kong's prompt guard sent it is in the source, not the body
    "proxy-kong-prompt-guard-bad-request": ("invalid_request", False),
    # "failed to parse JSON response instructions from AI backend" under a 500: the gateway's
    # own parse of the backend's reply, not a tool call the model produced
    "proxy-kong-json-instructions-unparseable-500": ("server_error", True),
    # a socket.io frame of Perplexity Labs' unofficial web socket, a format no API sends
    "perplexity-labs-query-progress-failed": ("unknown", False),
    # heldout12 (round 13): pydantic's extra_forbidden for stream_options.include_usage,
    # labelled capability_mismatch; heldout10 holds the same error from another server as
    # invalid_request, and every other extra_forbidden line of the corpus is invalid_request
    "proxy-litellm-mistral-stream-options-extra-forbidden": ("invalid_request", False),
    # heldout13 (round 14): "Generate API was removed ... Please migrate to Chat API" with no
    # status, labelled invalid_request; heldout9 holds the same message (a 404) as
    # model_not_found, and the word model (round 16), counted on both, reads it so
    "cohere-generate-api-removed-migrate-to-chat": ("model_not_found", False),
    # an error event in a stream whose words name nothing ("Compute error."), labelled
    # server_error; the first corpus holds such an event ("Something went wrong") as unknown
    "proxy-lmstudio-sse-embedded-compute-error": ("unknown", False),
    # heldout14 (round 15): a Python exception's words in a 400 ("'NoneType' object is not
    # iterable"), labelled invalid_request for its code wrong_api_format; heldout5 holds a
    # NameError in a 400 as server_error, and Cerebras sends wrong_api_format for capability
    # errors too
    "cerebras-400-nonetype-not-iterable-wrong-api-format": ("server_error", True),
    # "maximum context length is 2048 tokens ... (583 in the messages, 3000 in the
    # completion)", labelled context_too_long; the output bound alone exceeds the window, which
    # the corpus holds as invalid_request (lower max_tokens) since round 3
    "proxy-fastchat-400-max-context-2048-code-40303": ("invalid_request", False),
    # a router's "Network connection lost." mid-stream (metadata.error_type
    # provider_unavailable) and a gateway's "Stream ended before producing useful content",
    # labelled server_error; the corpus holds such words as a lost connection. All retryable
    "openrouter-sse-502-network-connection-lost-provider-unavailable": ("network", True),
    "proxy-omniroute-sse-error-stream-ended-before-useful-content": ("network", True),
    # heldout15 (round 17): one request larger than the whole per-minute budget ("Request too
    # large ... on tokens per minute (TPM): Limit 12000, Requested 14137"), labelled
    # rate_limit and not retryable; the corpus holds it as context_too_long since round 3
    # (heldout6's groq-on-demand-tpm-request-too-large-413: the input must shrink)
    "groq-413-request-too-large-tpm-llama33": ("context_too_long", False),
    "openai-sse-response-failed-tpm-request-too-large": ("context_too_long", False),
    # a per-minute, per-region limit whose value is 0, labelled rate_limit and not retryable:
    # the body's window is a minute, which the corpus holds as a throttle (round 3); that the
    # limit stays 0 in that region is in the source
    "gemini-429-rate-limit-exceeded-region-limit-zero": ("rate_limit", True),
    # a bare "Status: 429" from a client, labelled quota_exhausted: that the monthly limit was
    # spent is in a comment of the source, not in the body
    "mistral-429-cannot-stream-monthly-limit": ("rate_limit", True),
    # vLLM's "max_tokens must be at least 1, got -53.", labelled invalid_request; the first
    # corpus holds the same message as context_too_long (vllm-400-negative-max-tokens)
    "vllm-400-max-tokens-negative": ("context_too_long", False),
    # Ollama's "model requires more system memory ... than is available", labelled not
    # retryable; the first corpus holds it retryable (ollama-insufficient-memory-500)
    "ollama-500-model-requires-more-memory-llama33": ("server_error", True),
    # two of four Imagen predictions withheld, labelled content_filtered: images came back,
    # and the corpus holds a response with some images kept as an answer (round 11)
    "vertex-200-imagen-rai-filtered-some-images": ("unknown", False),
    # xAI's billing endpoint: "No personal team." under a 412 and gRPC's FAILED_PRECONDITION
    # words, labelled permission_denied; nothing in the body speaks of access
    "xai-412-billing-no-personal-team": ("invalid_request", False),
    # "unsupported tool: AwaitShell", labelled malformed_tool_call: the corpus holds a tool an
    # endpoint does not take as capability_mismatch; that the model called a removed tool is
    # in the source
    "proxy-cursor-unsupported-tool-awaitshell": ("capability_mismatch", False),
    # heldout16 (round 18): Vertex's per-base-model request quota, labelled quota_exhausted
    # (the project's quota was 0); the corpus holds that metric as a per-minute throttle
    # eight times (tune's vertex-429-online-prediction-per-base-model-claude)
    "vertex-429-claude-base-model-quota-zero": ("rate_limit", True),
    # "Error communicating with OpenAI", labelled not retryable (missing root certificates,
    # in the source); nothing in the body says the exchange cannot succeed
    "network-openai-apiconnectionerror-macos-async-ssl-certs": ("network", True),
    # a pydantic validation error under a 400, labelled server_error and not retryable; that
    # the model named is the server's own output object is in the source
    "sglang-400-responses-output-validation": ("invalid_request", False),
    # Ollama's "model requires more system memory", labelled not retryable: the first corpus
    # holds it retryable (ollama-insufficient-memory-500)
    "ollama-500-insufficient-system-memory": ("server_error", True),
    # a client's repr of "Service Temporarily Unavailable", labelled model_overloaded; the
    # corpus holds the same 503 words as server_error (heldout11's
    # proxy-nginx-503-temporarily-unavailable). Both retryable
    "ollama-cloud-service-temporarily-unavailable": ("server_error", True),
    # Envoy's "upstream connect error or disconnect/reset before headers", labelled network;
    # the corpus holds it as server_error six times (tune's
    # proxy-envoy-503-reset-connection-termination). Both retryable
    "aibrix-envoy-upstream-reset-before-headers": ("server_error", True),
    # an HTTP/2 "stream error: stream ID 17; INTERNAL_ERROR; received from peer", labelled
    # server_error; heldout4 holds the same words as a lost connection
    # (network-go-http2-stream-internal-error-from-peer). Both retryable
    "openai-sse-codex-http2-stream-internal-error": ("network", True),
    # heldout17 (round 19): Azure's bare "Resource not found", labelled a wrong URL path;
    # heldout16 holds the same words as a missing deployment
    # (azure-404-resource-not-found-cline-wrapper)
    "azure-404-resource-not-found-missing-deployment-path": ("model_not_found", False),
    # Bedrock's "Too many tokens, please wait before trying again", labelled a request that
    # can never pass (max_tokens times the output burndown over the per-minute quota): that
    # is in the source, the body says wait
    "bedrock-null-too-many-tokens-max-tokens-64000": ("rate_limit", True),
    # Gemini's per-minute input-token QuotaFailure, labelled context_too_long because the one
    # request was larger than the whole budget: the request's size is in the source only
    "gemini-429-input-tokens-per-minute-single-request": ("rate_limit", True),
    # heldout18 (round 20): ZenMux's 403 "You have no permission to access this resource",
    # labelled auth_failed because its docs say the key was invalid; the body says permission
    "zenmux-403-access-denied-invalid-key": ("permission_denied", False),
    # Bedrock's "extraneous key [output_config] is not permitted ... adaptive is not a valid
    # enum value" for fields a newer API version has: the collector read a capability, the
    # audit a malformed request; the corpus reads an unpermitted feature field as the former
    "bedrock-relay-adaptive-thinking-output-config-not-permitted": ("capability_mismatch", False),
    # a tool call's arguments string alone, as a 200 body: that it is a tool call's (and not
    # a cut answer) is in the source, not in the body
    "qwen35-flash-tool-args-bare-backslash-n-openhands": ("unknown", False),
    # an agent's own JSONL turn log quoting "The server had an error": no provider's format,
    # and nothing in it is an event of the stream
    "bedrock-mantle-responses-failed-server-error-aether": ("unknown", False),
    # heldout19 (round 21): a relay's 500 "not implemented", labelled capability because the
    # model was an image model: that is in the source, the body says the server failed
    "dmxapi-flux-chat-completions-not-implemented-500": ("server_error", True),
    # Bedrock's "on-demand throughput isn't supported", labelled invalid_request; the corpus
    # holds it as capability_mismatch ten times (heldout2's
    # bedrock-on-demand-throughput-needs-inference-profile), as the issue names a tier
    "bedrock-400-deepseek-r1-on-demand-unsupported": ("capability_mismatch", False),
    # an agent's English "temporarily unavailable (HTTP 524)" around a relay's "服务器已经满载"
    # (the server is full), labelled overload from the Chinese; both retryable
    "dmxapi-glm-524-server-full-load": ("server_error", True),
    # a Python repr of a vLLM choice whose tool call sits in reasoning_content: not a body a
    # client receives, and no JSON to read
    "vllm-minimax-m27-tool-call-leaked-into-reasoning": ("unknown", False),
    # a CLI's print of a partial answer run into "Error: an error was encountered while
    # running the model": no body, and mid-line
    "ollama-cli-midstream-runner-unexpected-eof": ("unknown", False),
    # one sentence of plain text as a 2xx stream ("Output data may contain inappropriate
    # content"): nothing tells it from a model's answer
    "dashscope-stream-output-data-inappropriate": ("unknown", False),
    # "Error: Connection error.", labelled not retryable (an untrusted certificate, in the
    # source), like heldout16's network-openai-apiconnectionerror-macos-async-ssl-certs
    "network-openai-node-unable-to-verify-first-certificate": ("network", True),
    # heldout20 (round 22): a relay's rewritten 429 "当前分组上游负载已饱和" labelled an overload;
    # heldout18's audit found the relay writes it over every upstream 429 (a throttle)
    "genai-429-relay-upstream-load-saturated": ("rate_limit", True),
    # llama.cpp's "input (4002 tokens) is too large to process. increase the physical batch
    # size", labelled context_too_long; the corpus holds a batch limit as the request's
    "llamacpp-500-embed-batch-too-large": ("invalid_request", False),
    # Bedrock's "Bedrock is unable to process your request" in a stream, labelled a server
    # error; the corpus holds the same words as an overload three times
    # (bedrock-service-unavailable-503). Both retryable
    "bedrock-anthropic-midstream-unable-to-process": ("model_overloaded", True),
    # one plain sentence as a 2xx body ("Sorry, the model cannot answer this question."): a
    # guardrail's canned text, in the source; nothing tells it from an answer
    "bedrock-guardrail-blocked-message-claude-code": ("unknown", False),
    # Azure's "Extra inputs are not permitted" for max_completion_tokens, labelled a
    # capability (an older API version); the corpus holds the same words for that field as
    # invalid_request twice (vllm-400-extra-forbidden-max-completion-tokens)
    "azure-400-validation-extra-inputs-max-completion-tokens": ("invalid_request", False),
    # heldout21 (round 23): the same relay's "当前分组上游负载已饱和" with its status lost,
    # labelled an overload; the corpus holds it as a throttle seven times
    # (relay-rix-upstream-saturated-429-dify-plugin). Both retryable
    "dmxapi-upstream-group-saturated-reqid": ("rate_limit", True),
    # a relay's 500 "not implemented" for the Responses API, labelled capability because of
    # the endpoint and model: heldout19 holds the same body as a server error
    # (dmxapi-flux-chat-completions-not-implemented-500)
    "dmxapi-responses-not-implemented-gemini-thinking": ("server_error", True),
    # Bedrock's "on-demand throughput isn't supported", labelled invalid_request; the corpus
    # holds it as capability_mismatch ten times (see bedrock-400-deepseek-r1-on-demand-...)
    "bedrock-validation-on-demand-throughput-llama32": ("capability_mismatch", False),
    # Mistral's extra_forbidden for stream_options, labelled a capability; heldout10 holds the
    # same body as invalid_request (mistral-stream-options-extra-forbidden-422)
    "mistral-422-stream-options-extra-forbidden": ("invalid_request", False),
    # heldout22 (round 24): Bedrock's "Too many tokens per day, please wait before trying
    # again." behind a relay's 500, labelled a throttle; the first corpus holds the same words
    # as a spent daily allowance (bedrock-too-many-tokens-per-day-429), and so do heldout12
    # and heldout21
    "proxy-500-wraps-bedrock-throttling-tokens-per-day-zh": ("quota_exhausted", False),
    # Azure's S0 "exceeded token rate limit ... Please retry after 86400 seconds", labelled a
    # throttle; the first corpus holds it as quota_exhausted (azure-token-rate-limit-429-s0):
    # a wait of a day outlasts any retry
    "azure-429-chatcompletions-aiservices-s0-retry-86400": ("quota_exhausted", False),
    # Claude Code's version gate ("does not support this model; version N or newer is
    # required"), labelled invalid_request; the tune split holds it, with its code
    # claude_code_version_too_old, as capability_mismatch
    "anthropic-cc-version-gate-cindy": ("capability_mismatch", False),
    # xAI's route-level 404 ("The requested resource was not found. Please check the URL"),
    # labelled invalid_request; heldout4 holds the same body as model_not_found
    # (xai-requested-resource-not-found-404), heldout8 its sibling "No handler found on
    # route". The corpus labels a wrong path both ways (model_not_found eight times,
    # invalid_request six); both are final
    "xai-404-requested-resource-not-found-copilot-ext": ("model_not_found", False),
    # a client's "unexpected status 404 Not Found: Unknown error, url: .../responses" (a path
    # DeepSeek does not serve), labelled invalid_request: the same two-way family, and the
    # body names neither a model nor a path error; a 404's default stays model_not_found
    "deepseek-responses-path-404": ("model_not_found", False),
}
# Rounds 2 to 23's held-out splits (``heldout2`` to ``heldout22``), each scored once when it
# was fresh (the figures are bench/bench_classify.py's ROUNDn_HELDOUT and the corpus notes'
# tables) and read by the round after it: tuning data now, checked line by line.
READ_HELDOUT = [r for r in ROWS_2026 if r["split"] not in ("tune", "heldout", FRESH_SPLIT)]
# Never printed per line, never read to write a rule.
FRESH = [r for r in ROWS_2026 if r["split"] == FRESH_SPLIT]


def _verdict(row: dict[str, Any]) -> tuple[str, bool]:
    err = classify(row["status"], row.get("headers") or {}, row["body"], provider=row["provider"])
    return err.kind, err.retryable


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_corpus_line(row: dict[str, Any]) -> None:
    assert row["kind"] in KINDS
    kind, retryable = _verdict(row)
    assert (kind, retryable) == (row["kind"], row["retryable"]), (
        f"{row['id']}: got {kind}/{retryable}, corpus says {row['kind']}/{row['retryable']} "
        f"(source: {row['source']})"
    )


def test_corpus_accuracy() -> None:
    assert len(ROWS) >= 100, "the corpus should hold at least 100 failures"
    hits: collections.Counter[str] = collections.Counter()
    totals: collections.Counter[str] = collections.Counter()
    for row in ROWS:
        totals[row["kind"]] += 1
        if _verdict(row) == (row["kind"], row["retryable"]):
            hits[row["kind"]] += 1
    accuracy = sum(hits.values()) / len(ROWS)
    lines = [f"corpus accuracy {accuracy:.1%} ({sum(hits.values())}/{len(ROWS)})"]
    for kind in sorted(totals):
        lines.append(f"  {kind:<20} {hits[kind]}/{totals[kind]}")
    print("\n".join(lines))
    assert accuracy >= THRESHOLD, "\n".join(lines)


def test_every_corpus_line_has_a_source() -> None:
    for row in ROWS:
        assert row.get("source"), row["id"]
        assert row["where"] in {"http", "body200", "sse", "transport"}, row["id"]


@pytest.mark.parametrize("row", TUNE, ids=[r["id"] for r in TUNE])
def test_2026_tune_line(row: dict[str, Any]) -> None:
    assert row["kind"] in KINDS
    kind, retryable = _verdict(row)
    assert (kind, retryable) == (row["kind"], row["retryable"]), (
        f"{row['id']}: got {kind}/{retryable}, corpus says {row['kind']}/{row['retryable']} "
        f"(source: {row['source']})"
    )


@pytest.mark.parametrize("row", HELDOUT1, ids=[r["id"] for r in HELDOUT1])
def test_2026_heldout1_line(row: dict[str, Any]) -> None:
    assert row["kind"] in KINDS
    kind, retryable = _verdict(row)
    assert (kind, retryable) == (row["kind"], row["retryable"]), (
        f"{row['id']}: got {kind}/{retryable}, corpus says {row['kind']}/{row['retryable']} "
        f"(source: {row['source']})"
    )


@pytest.mark.parametrize("row", READ_HELDOUT, ids=[r["id"] for r in READ_HELDOUT])
def test_2026_read_heldout_line(row: dict[str, Any]) -> None:
    kind, retryable = _verdict(row)
    want = DOUBTED.get(row["id"], (row["kind"], row["retryable"]))
    assert (kind, retryable) == want, (
        f"{row['id']}: got {kind}/{retryable}, expected {want} (source: {row['source']})"
    )


#: The fresh held-out split's accuracy, measured once when it is scored, and ``None`` until
#: then. ``heldout23`` is collected after round 24's rules (committed 2026-12-08); the split
#: before it, ``heldout22``, scored 98/112 (87.5%) under round 23's tree and is read now.
FRESH_MEASURED: float | None = None


def test_2026_fresh_heldout_accuracy() -> None:
    """The fresh held-out split (:data:`FRESH_SPLIT`), in aggregate only: its lines' ids, bodies and
    labels are never printed, so that tuning the rules on its failures stays impossible by
    accident."""
    if not FRESH:
        pytest.skip(f"no {FRESH_SPLIT!r} lines in tests/data/classify_corpus_2026.jsonl")
    assert len(FRESH) >= HELDOUT_MIN, "the fresh held-out split should hold at least 50 failures"
    hits = sum(_verdict(r) == (r["kind"], r["retryable"]) for r in FRESH)
    accuracy = hits / len(FRESH)
    score = f"2026 fresh held-out ({FRESH_SPLIT}) accuracy {accuracy:.1%} ({hits}/{len(FRESH)})"
    print(score)
    # Short of the 97% target (HELDOUT_THRESHOLD), which is not met yet: this guards the
    # measured figure against a regression; a later round that tunes on these lines needs a
    # fresh held-out set.
    assert FRESH_MEASURED is not None, f"{score}: record it in FRESH_MEASURED, once"
    assert accuracy >= FRESH_MEASURED, score


def test_every_2026_line_has_a_source_and_a_split() -> None:
    assert ROWS_2026, "tests/data/classify_corpus_2026.jsonl is missing"
    ids = [r["id"] for r in ROWS_2026]
    assert len(set(ids)) == len(ids), "ids must be unique"
    for row in ROWS_2026:
        assert row.get("source"), row["id"]
        assert SPLIT_NAME.fullmatch(row.get("split") or ""), row["id"]
        assert row["where"] in {"http", "body200", "sse", "transport"}, row["id"]
        assert row["kind"] in KINDS, row["id"]
        assert isinstance(row["retryable"], bool), row["id"]
    assert sum(r["split"] == "heldout" for r in ROWS_2026) >= HELDOUT_MIN
