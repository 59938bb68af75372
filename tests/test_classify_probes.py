"""General-knowledge probes of the classifier: failures written from what providers, gateways and
HTTP clients are known to say, across every kind.

SYNTHETIC. Each case was written for this test, from general knowledge of the providers'
message styles, not copied from any corpus line or held-out split; they were written and fixed
before the split they preceded was scored (rounds 9 and 10, see
``tests/data/classify_corpus_2026.md``). Real failures belong in the corpora, never here.
"""

# ruff: noqa: E501  (the probes are whole messages, one per line)
from __future__ import annotations

from typing import Any

import pytest

from surefoot import classify

SSE = {"content-type": "text/event-stream"}

# (status, headers, body, expected kind)
PROBES: list[tuple[int | None, dict[str, str], Any, str]] = [
    (
        503,
        {},
        {"error": {"message": "The model is experiencing high demand. Please try again later."}},
        "model_overloaded",
    ),
    (
        503,
        {},
        {"error": {"message": "Too much traffic right now, please retry shortly"}},
        "model_overloaded",
    ),
    (
        500,
        {},
        {"error": {"message": "panic: runtime error: index out of range [3] with length 3"}},
        "server_error",
    ),
    (
        500,
        {},
        {"detail": 'Traceback (most recent call last): File "/app/server.py", line 10'},
        "server_error",
    ),
    (
        400,
        {},
        {"error": {"message": "This model does not accept image inputs."}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "Audio input is not offered for gpt-4o-mini"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "The selected model has no support for function calling"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "Tool calling must be enabled on this deployment to use tools"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "json mode is incompatible with the current model"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "Prompt is too long: 210000 tokens > 200000 maximum"}},
        "context_too_long",
    ),
    (
        400,
        {},
        {"error": {"message": "Input exceeds the model's token limit of 32768"}},
        "context_too_long",
    ),
    (
        400,
        {},
        {"error": {"message": "Your input is longer than the context window allows"}},
        "context_too_long",
    ),
    (
        429,
        {},
        {"error": {"message": "You have hit your concurrent request limit, please wait"}},
        "rate_limit",
    ),
    (
        402,
        {},
        {"error": {"message": "Insufficient balance. Top up your account to continue."}},
        "quota_exhausted",
    ),
    (403, {}, {"error": {"message": "Your free trial has ended"}}, "quota_exhausted"),
    (
        404,
        {},
        {"error": {"message": "The model 'gpt-5-ultra' is not available"}},
        "model_not_found",
    ),
    (
        410,
        {},
        {"error": {"message": "This model has been retired and is no longer available"}},
        "model_not_found",
    ),
    (
        403,
        {},
        {"error": {"message": "This API key does not have permission to use this model"}},
        "permission_denied",
    ),
    (401, {}, {"error": {"message": "The API key you provided has expired"}}, "auth_failed"),
    (None, {}, "httpx.ReadError: [Errno 104] Connection reset by peer", "network"),
    (None, {}, "java.net.SocketTimeoutException: Read timed out", "timeout"),
    (
        None,
        {},
        "System.Net.Http.HttpRequestException: An error occurred while sending the request. The response ended prematurely.",
        "network",
    ),
    (
        None,
        {},
        "reqwest::Error { kind: Request, source: hyper::Error(IncompleteMessage) }",
        "network",
    ),
    (None, {}, "ECONNRESET", "network"),
    (None, {}, "read ECONNRESET", "network"),
    (
        None,
        {},
        "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
        "timeout",
    ),
    (
        200,
        {},
        {"choices": [{"finish_reason": "content_filter", "message": {"content": None}}]},
        "content_filtered",
    ),
    (
        400,
        {},
        {
            "error": {
                "message": "The response was filtered due to the prompt triggering Azure OpenAI's content management policy."
            }
        },
        "content_filtered",
    ),
    (
        400,
        {},
        {"error": {"message": "Output blocked by the safety classifier"}},
        "content_filtered",
    ),
    (400, {}, {"error": {"message": "Input flagged as unsafe by Llama Guard"}}, "content_filtered"),
    (500, {}, {"error": {"message": "Upstream provider returned an error"}}, "server_error"),
    (502, {}, {"error": {"message": "Provider returned error", "code": 502}}, "server_error"),
    (
        400,
        {},
        {
            "error": {
                "message": "Invalid schema for function 'get_weather': In context=(), 'required' is required to be supplied"
            }
        },
        "invalid_request",
    ),
    (
        400,
        {},
        {"error": {"message": "messages: at least one message is required"}},
        "invalid_request",
    ),
    (
        400,
        {},
        {"error": {"message": "The model produced invalid JSON in its tool call"}},
        "malformed_tool_call",
    ),
    (
        500,
        {},
        {"error": {"message": "Failed to parse the model's function call output"}},
        "malformed_tool_call",
    ),
    (408, {}, {"error": {"message": "Request timed out waiting for the model"}}, "timeout"),
    (504, {}, "<html><body><h1>504 Gateway Time-out</h1></body></html>", "timeout"),
    (
        400,
        {},
        {"error": {"message": "Reasoning effort 'high' is only available on o-series models"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "System messages are not allowed for this model"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "top_k is not a valid parameter for this provider"}},
        "capability_mismatch",
    ),
    (400, {}, {"error": {"message": "Image too large: maximum 20MB"}}, "invalid_request"),
    (400, {}, {"error": {"message": "Too many images in request: max 5"}}, "invalid_request"),
    (
        400,
        {},
        {"error": {"message": "Model gpt-4o-mini cannot process PDF files"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "This endpoint does not accept a system prompt"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "Streaming responses are not available for batch jobs"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "'n' > 1 is not allowed with this model"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "The requested model does not have vision capabilities"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "Feature 'prompt caching' requires the Scale tier"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "Field 'messages.0.content' must be a string or an array"}},
        "invalid_request",
    ),
    (
        422,
        {},
        {
            "detail": [
                {
                    "loc": ["body", "temperature"],
                    "msg": "ensure this value is less than or equal to 2",
                    "type": "value_error.number.not_le",
                }
            ]
        },
        "invalid_request",
    ),
    (400, {}, {"error": {"message": "Missing required parameter: 'messages'."}}, "invalid_request"),
    (400, {}, {"error": {"message": "'tools' array must not be empty"}}, "invalid_request"),
    (400, {}, {"error": {"message": "Invalid base64 image data"}}, "invalid_request"),
    (
        413,
        {},
        "<html><head><title>413 Request Entity Too Large</title></head></html>",
        "invalid_request",
    ),
    (
        429,
        {},
        {"error": {"message": "Monthly token allowance exhausted for this key"}},
        "quota_exhausted",
    ),
    (
        429,
        {},
        {"error": {"message": "Requests per day limit reached; resets at 00:00 UTC"}},
        "quota_exhausted",
    ),
    (429, {}, {"error": {"message": "Slow down: 5 requests per second max"}}, "rate_limit"),
    (
        429,
        {"retry-after": "3"},
        {"error": {"message": "Concurrency limit of 10 reached"}},
        "rate_limit",
    ),
    (
        402,
        {},
        {"error": {"message": "Your organization has run out of prepaid credits"}},
        "quota_exhausted",
    ),
    (
        403,
        {},
        {"error": {"message": "Access to this model is restricted in your region"}},
        "permission_denied",
    ),
    (
        403,
        {},
        {"error": {"message": "Your account has been suspended for violating our terms"}},
        "permission_denied",
    ),
    (
        404,
        {},
        {"error": {"message": "Deployment 'gpt4-prod' could not be found"}},
        "model_not_found",
    ),
    (404, {}, {"error": {"message": "No such model: llama-9-400b"}}, "model_not_found"),
    (
        400,
        {},
        {"error": {"message": "Model 'claude-2.0' has been deprecated and removed"}},
        "model_not_found",
    ),
    (
        500,
        {},
        {"error": {"message": "CUDA out of memory. Tried to allocate 2.00 GiB"}},
        "server_error",
    ),
    (500, {}, {"error": {"message": "Something went wrong on our end"}}, "server_error"),
    (
        502,
        {},
        "upstream connect error or disconnect/reset before headers. reset reason: connection failure",
        "server_error",
    ),
    (503, {}, "no healthy upstream", "server_error"),
    (524, {}, "<html>A timeout occurred</html>", "timeout"),
    (
        200,
        SSE,
        'event: error\ndata: {"error":{"message":"Internal server error","type":"server_error"}}\n\n',
        "server_error",
    ),
    (
        200,
        SSE,
        'data: {"error":{"message":"The server is overloaded, please try again later","code":"overloaded"}}\n\n',
        "model_overloaded",
    ),
    (200, {}, {"candidates": [{"finishReason": "SAFETY"}]}, "content_filtered"),
    (
        200,
        {},
        {"choices": [{"finish_reason": "error", "message": {"content": ""}}]},
        "server_error",
    ),
    (200, {}, {"error": {"message": "Rate limit exceeded", "code": 429}}, "rate_limit"),
    (
        200,
        {},
        {"success": False, "errors": [{"code": 7003, "message": "No route for that URI"}]},
        "invalid_request",
    ),
    (None, {}, "aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected", "network"),
    (
        None,
        {},
        "urllib3.exceptions.ProtocolError: ('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))",
        "network",
    ),
    (None, {}, "openai.APIConnectionError: Connection error.", "network"),
    (None, {}, "anthropic.APITimeoutError: Request timed out.", "timeout"),
    (None, {}, "Error: socket hang up", "network"),
    (None, {}, "dial tcp: lookup api.openai.com: no such host", "network"),
    (None, {}, "net/http: TLS handshake timeout", "timeout"),
    (None, {}, "SSLError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed", "network"),
    (400, {}, {"error": {"message": "Stop sequences are limited to 4"}}, "invalid_request"),
    (
        400,
        {},
        {
            "error": {
                "message": "max_tokens is too large: 100000. This model supports at most 16384 completion tokens"
            }
        },
        "invalid_request",
    ),
    (
        400,
        {},
        {"error": {"message": "Your prompt was flagged as potentially violating our usage policy"}},
        "content_filtered",
    ),
    (
        400,
        {},
        {
            "error": {
                "message": "This model's maximum prompt length is 4096 but the request has 5000 tokens"
            }
        },
        "context_too_long",
    ),
    (
        400,
        {},
        {"error": {"message": "Request exceeds maximum sequence length (8192)"}},
        "context_too_long",
    ),
    (
        400,
        {},
        {
            "error": {
                "message": "The input token count (1048576) exceeds the maximum number of tokens allowed (1000000)."
            }
        },
        "context_too_long",
    ),
    (
        413,
        {},
        {"error": {"message": "Prompt too large for the selected model"}},
        "context_too_long",
    ),
    (
        400,
        {},
        {"error": {"message": "Conversation is too long, please start a new one"}},
        "context_too_long",
    ),
    (
        400,
        {},
        {"error": {"message": "'temperature' is not supported with reasoning models"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "Only 'auto' tool_choice is supported by this model"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "This model does not support structured outputs"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "Image inputs are only available for vision models"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "The 'developer' role is not supported by this model"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "assistant prefill is not supported when thinking is enabled"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {"error": {"message": "Embeddings are not available for chat models"}},
        "capability_mismatch",
    ),
    (
        400,
        {},
        {
            "error": {
                "message": "messages.1.content.0.image.source.base64.data: invalid base64 data"
            }
        },
        "invalid_request",
    ),
    (
        400,
        {},
        {"error": {"message": "Each message must have a 'role' and 'content' field"}},
        "invalid_request",
    ),
    (
        400,
        {},
        {
            "error": {
                "message": "Unknown role 'bot'. Expected one of: system, user, assistant, tool"
            }
        },
        "invalid_request",
    ),
    (
        400,
        {},
        {"error": {"message": "JSON parse error: Unexpected character ('}' (code 125))"}},
        "invalid_request",
    ),
    (400, {}, {"error": {"message": "request body is not valid JSON"}}, "invalid_request"),
    (
        415,
        {},
        {"error": {"message": "Unsupported Media Type: expected application/json"}},
        "invalid_request",
    ),
    (405, {}, "Method Not Allowed", "invalid_request"),
    (429, {}, {"error": {"message": "Token rate limit exceeded: 80000 TPM"}}, "rate_limit"),
    (
        429,
        {},
        {"error": {"message": "Your organization has exceeded its spending limit for the month"}},
        "quota_exhausted",
    ),
    (
        429,
        {},
        {"error": {"message": "You have reached your daily message cap. Try again tomorrow."}},
        "quota_exhausted",
    ),
    (402, {}, {"error": {"message": "Billing hard limit has been reached"}}, "quota_exhausted"),
    (
        403,
        {},
        {"error": {"message": "Project is not allowlisted for this model"}},
        "permission_denied",
    ),
    (
        403,
        {},
        {"error": {"message": "Your API key does not have the required scope: model.request"}},
        "permission_denied",
    ),
    (
        403,
        {},
        {"error": {"message": "Country, region, or territory not supported"}},
        "permission_denied",
    ),
    (401, {}, {"error": {"message": "Missing bearer authentication in header"}}, "auth_failed"),
    (401, {}, {"error": {"message": "Invalid Authentication"}}, "auth_failed"),
    (401, {}, {"error": {"message": "x-api-key header is required"}}, "auth_failed"),
    (404, {}, {"error": {"message": "The requested resource was not found"}}, "model_not_found"),
    (
        400,
        {},
        {"error": {"message": "model 'llama3:70b' not found, try pulling it first"}},
        "model_not_found",
    ),
    (
        503,
        {},
        {"error": {"message": "Model is currently loading, estimated time 20s"}},
        "model_overloaded",
    ),
    (503, {}, {"error": {"message": "Service temporarily unavailable"}}, "server_error"),
    (
        500,
        {},
        {
            "error": {
                "message": "The server encountered an internal error and was unable to complete your request"
            }
        },
        "server_error",
    ),
    (500, {}, {"error": {"message": "Unexpected error while generating response"}}, "server_error"),
    (502, {}, "<html><center>502 Bad Gateway</center></html>", "server_error"),
    (
        529,
        {},
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        "model_overloaded",
    ),
    (
        200,
        SSE,
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        "model_overloaded",
    ),
    (
        200,
        SSE,
        'data: {"choices":[{"delta":{},"finish_reason":"content_filter"}]}\n\n',
        "content_filtered",
    ),
    (200, {}, {"type": "message", "stop_reason": "refusal", "content": []}, "content_filtered"),
    (
        200,
        {},
        {
            "output": {"message": {"role": "assistant", "content": []}},
            "stopReason": "guardrail_intervened",
        },
        "content_filtered",
    ),
    (
        200,
        {},
        {
            "id": "x",
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c",
                                "type": "function",
                                "function": {"name": "f", "arguments": "{bad json"},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
        },
        "malformed_tool_call",
    ),
    (200, {}, {"error": "Internal error occurred while streaming"}, "server_error"),
    (
        200,
        SSE,
        'data: {"error":{"code":"context_length_exceeded","message":"Input too long"}}\n\n',
        "context_too_long",
    ),
    (
        None,
        {},
        "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.openai.com', port=443): Read timed out. (read timeout=600)",
        "timeout",
    ),
    (
        None,
        {},
        "httpx.RemoteProtocolError: peer closed connection without sending complete message body (incomplete chunked read)",
        "network",
    ),
    (
        None,
        {},
        "grpc._channel._InactiveRpcError: StatusCode.UNAVAILABLE: failed to connect to all addresses",
        "network",
    ),
    (None, {}, "StatusCode.DEADLINE_EXCEEDED: Deadline Exceeded", "timeout"),
    (None, {}, "Error: getaddrinfo ENOTFOUND api.anthropic.com", "network"),
    (None, {}, "java.net.ConnectException: Connection refused", "network"),
    (
        None,
        {},
        "System.Threading.Tasks.TaskCanceledException: The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing.",
        "timeout",
    ),
]


@pytest.mark.parametrize(("status", "headers", "body", "kind"), PROBES)
def test_probe(status: int | None, headers: dict[str, str], body: Any, kind: str) -> None:
    err = classify(status, headers, body)
    assert err.kind == kind, err.context.metadata.get("classified_by")
