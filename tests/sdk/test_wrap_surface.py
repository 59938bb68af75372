"""What `surefoot.wrap` returns and raises, seen from code written against the SDKs: the same
class and API, the SDK's retries off, the original client untouched, copies that stay wrapped,
and failures that are the SDK's exception and surefoot's typed error at once."""

from __future__ import annotations

import pickle

import anthropic
import httpx
import httpx2
import openai
import pytest
from _sdks import Runner, Sdk

import surefoot
from surefoot.testing import FaultServer, faults


def _ask(client: openai.OpenAI) -> str:
    out = client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "hello there"}]
    )
    return str(out.choices[0].message.content)


def test_the_wrapped_client_is_the_sdks_class_with_its_retries_off(sdk: Sdk) -> None:
    with FaultServer() as srv:
        bare = sdk.bare(srv.base_url)
        wrapped = surefoot.wrap(bare)
        assert isinstance(wrapped, type(bare))
        assert type(wrapped).__name__ == type(bare).__name__
        assert wrapped.max_retries == 0
        # the original is left as it was: its own retries, its own HTTP client
        assert bare.max_retries == 2
        assert wrapped._client is not bare._client
        assert "surefoot" not in repr(bare._client._transport)
        assert "surefoot" in repr(wrapped._client._transport)


def test_the_original_client_still_retries_by_itself_and_the_wrapped_one_does_not() -> None:
    with FaultServer() as srv:
        bare = openai.OpenAI(base_url=srv.base_url + "/v1", api_key="sk-test-0123456789")
        wrapped = surefoot.wrap(bare, retries=0)
        srv.enqueue(faults.Status(503), times=10)
        with pytest.raises(openai.InternalServerError):
            wrapped.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert len(srv.requests) == 1
        srv.reset()
        srv.enqueue(faults.Status(503), times=10)
        with pytest.raises(openai.InternalServerError) as info:
            bare.with_options(max_retries=1).chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}]
            )
        assert len(srv.requests) == 2
        assert not isinstance(info.value, surefoot.SurefootError)  # the bare SDK's own error


def test_copies_of_a_wrapped_client_stay_wrapped() -> None:
    with FaultServer() as srv:
        wrapped = surefoot.wrap(
            openai.OpenAI(base_url=srv.base_url + "/v1", api_key="sk-test-0123456789"),
            retry_base=0.001,
            max_delay=0.01,
        )
        copy = wrapped.with_options(timeout=20)
        assert copy.max_retries == 0
        srv.enqueue(faults.Status(503))
        assert _ask(copy) == "hello there"  # retried by surefoot
        assert len(srv.requests) == 2
        srv.enqueue(faults.Status(400))
        with pytest.raises(surefoot.SurefootError):
            _ask(copy)


def test_wrapping_again_replaces_the_options_instead_of_nesting_two_engines() -> None:
    with FaultServer() as srv:
        once = surefoot.wrap(
            openai.OpenAI(base_url=srv.base_url + "/v1", api_key="sk-test-0123456789"),
            retries=3,
            retry_base=0.001,
            max_delay=0.01,
        )
        twice = surefoot.wrap(once, retries=0)
        srv.enqueue(faults.Status(503), times=10)
        with pytest.raises(openai.InternalServerError) as info:
            _ask(twice)
        assert len(srv.requests) == 1
        assert len(info.value.attempts) == 1


@pytest.mark.parametrize(
    "sdk_error",
    [openai.RateLimitError, openai.APIStatusError, openai.APIError, openai.OpenAIError],
)
def test_one_error_is_caught_by_the_sdks_clauses_and_by_surefoots(sdk_error: type) -> None:
    with FaultServer() as srv:
        client = surefoot.wrap(
            openai.OpenAI(base_url=srv.base_url + "/v1", api_key="sk-test-0123456789"),
            retries=1,
            retry_base=0.001,
            max_delay=0.01,
        )
        srv.enqueue(faults.Status(429, retry_after=0), times=5)
        with pytest.raises(sdk_error) as info:
            _ask(client)
        err = info.value
        assert isinstance(err, surefoot.RateLimitError)
        assert isinstance(err, surefoot.SurefootError)
        # the SDK's fields keep their SDK meaning; surefoot's own error is err.surefoot
        assert err.status_code == 429
        assert err.code == "rate_limit_exceeded"
        assert err.surefoot.code == "RATE_LIMIT_EXCEEDED"
        assert err.problem_details.error_code == "RATE_LIMIT_EXCEEDED"
        assert err.kind == "rate_limit" and err.retryable
        assert str(err).startswith("Error code: 429")
        assert [a.status for a in err.attempts] == [429, 429]
        assert err.request_id  # the SDK read it from the response headers


def test_anthropics_own_error_code_is_not_shadowed_by_surefoots_property() -> None:
    with FaultServer() as srv:
        client = surefoot.wrap(
            anthropic.Anthropic(base_url=srv.base_url, api_key="sk-ant-test-0123456789")
        )
        srv.enqueue(faults.Status(429, error="insufficient_quota"))
        with pytest.raises(anthropic.RateLimitError) as info:
            client.messages.create(
                model="c", max_tokens=8, messages=[{"role": "user", "content": "x"}]
            )
        err = info.value
        assert err.error_code == "enforced_spend_limit_reached"  # anthropic's attribute
        assert err.surefoot.error_code == "SUREFOOT-LLM"  # surefoot's, on its own error
        assert err.kind == "quota_exhausted"
        assert not err.retryable
        assert len(srv.requests) == 1


def test_a_wrapped_error_pickles_as_both_types() -> None:
    with FaultServer() as srv:
        client = surefoot.wrap(
            openai.OpenAI(base_url=srv.base_url + "/v1", api_key="sk-test-0123456789")
        )
        srv.enqueue(faults.Status(400))
        with pytest.raises(openai.BadRequestError) as info:
            _ask(client)
    err = info.value
    state = {k: v for k, v in err.__dict__.items() if k not in ("response", "request")}
    err.__dict__.clear()
    err.__dict__.update(state)  # the httpx objects do not pickle: the rest does
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err)
    assert isinstance(back, openai.BadRequestError) and isinstance(back, surefoot.SurefootError)
    assert back.kind == err.kind and str(back) == str(err)


def test_the_api_key_echoed_by_a_server_is_masked_in_the_error() -> None:
    key = "sk-test-echoed-4f9a2b7c1d"
    with FaultServer() as srv:
        client = surefoot.wrap(openai.OpenAI(base_url=srv.base_url + "/v1", api_key=key))
        srv.enqueue(faults.Status(401, message=f"Incorrect API key provided: {key}."))
        with pytest.raises(openai.AuthenticationError) as info:
            _ask(client)
    err = info.value
    for text in (str(err), repr(err), err.message, err.surefoot.message, repr(err.attempts)):
        assert key not in text
    assert key not in err.problem_details.to_json()


def test_wrap_rejects_what_it_cannot_wrap_and_bad_options() -> None:
    with pytest.raises(TypeError, match="official SDK client"):
        surefoot.wrap(object())
    client = openai.OpenAI(api_key="sk-test-0123456789", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="timeout"):
        surefoot.wrap(client, timeout=-1)
    with pytest.raises(TypeError, match="breaker"):
        surefoot.wrap(client, breaker=object())
    with pytest.raises(ValueError, match="provider"):
        surefoot.wrap(client, provider="nope")
    with pytest.raises(TypeError, match="nope"):
        surefoot.wrap(client, nope=1)
    with pytest.raises(ValueError, match="http"):
        surefoot.sdk.transport("requests")


def test_the_transport_in_a_plain_httpx2_client_hands_error_responses_back() -> None:
    with FaultServer() as srv:
        transport = surefoot.sdk.transport("httpx2", retries=1, retry_base=0.001, max_delay=0.01)
        with httpx2.Client(transport=transport) as http:
            srv.enqueue(faults.Status(503), times=2)
            body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
            response = http.post(srv.base_url + "/v1/chat/completions", json=body)
            # retried by surefoot, then the last error response is the caller's to handle
            assert response.status_code == 503
            assert len(srv.requests) == 2
            ok = http.post(srv.base_url + "/v1/chat/completions", json=body)
            assert ok.status_code == 200 and ok.json()["choices"]
    # no server at all: surefoot's typed error, not an httpx exception
    transport = surefoot.sdk.transport("httpx2", retries=0)
    with httpx2.Client(transport=transport) as http, pytest.raises(surefoot.NetworkError):
        http.post("http://127.0.0.1:9/v1/chat/completions", json={})


def test_the_async_transport_plugs_into_a_plain_httpx_client(runner: Runner) -> None:
    async def main(url: str) -> tuple[int, int]:
        transport = surefoot.sdk.async_transport("httpx", retry_base=0.001, max_delay=0.01)
        async with httpx.AsyncClient(transport=transport) as http:
            body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
            r = await http.post(url + "/v1/chat/completions", json=body)
            return r.status_code, len(r.json()["choices"])

    with FaultServer() as srv:
        srv.enqueue(faults.Reset())
        assert runner.run(main(srv.base_url)) == (200, 1)
        assert len(srv.requests) == 2
