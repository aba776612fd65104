"""API keys: surrounding whitespace stripped, unsendable keys refused up front, and
the key (escaped forms too) kept out of every error."""

from __future__ import annotations

import httpx
import pytest

from graphmem import Embedder, Llm, ModelError, Reranker
from graphmem.ai.http import JsonClient, RetryPolicy
from graphmem.errors import InvalidArgumentError
from graphmem.testing import ModelServer
from graphmem.testing.model_server import Fault


@pytest.mark.parametrize("suffix", ["\n", "\r\n", " ", "\t\n"])
def test_api_key_surrounding_whitespace_stripped(suffix: str) -> None:
    with ModelServer(api_key="sk-from-a-file") as server:
        embedder = Embedder("m", api_base=server.url, api_key=" sk-from-a-file" + suffix)
        assert embedder.embed(["x"]).shape == (1, 64)
        (request,) = server.requests_to("embeddings")
    assert request.headers["authorization"] == "Bearer sk-from-a-file"


def test_api_key_blank_sends_no_header(server: ModelServer) -> None:
    Embedder("m", api_base=server.url, api_key=" \n").embed(["x"])
    (request,) = server.requests_to("embeddings")
    assert "authorization" not in request.headers


@pytest.mark.parametrize(
    "key", ["sk-SECRET\nKEY", "sk-SECRET\x00KEY", "sk-SECRET\x7fKEY", "sk-SECRET\u00e9KEY"]
)
@pytest.mark.parametrize("adapter", [Embedder, Llm, Reranker])
def test_api_key_unsendable_refused_without_the_key(key: str, adapter: type) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        adapter("m", api_base="http://127.0.0.1:9/v1", api_key=key)
    assert caught.value.argument == "api_key"
    assert "SECRET" not in str(caught.value) and "SECRET" not in repr(caught.value)


def test_api_key_not_a_string_refused() -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        Embedder("m", api_key=b"sk-bytes")  # type: ignore[arg-type]
    assert caught.value.argument == "api_key"


def _refusing_client(key: str, calls: list[httpx.Request]) -> JsonClient:
    """A client whose transport refuses to form the request, as h11 refuses an
    illegal header, quoting the header as bytes."""

    def refuse(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise httpx.LocalProtocolError(f"Illegal header value {('Bearer ' + key).encode()!r}")

    client = JsonClient("http://127.0.0.1:9/v1", key, RetryPolicy(max_retries=2), "embeddings")
    client._client = httpx.Client(transport=httpx.MockTransport(refuse))
    return client


def test_api_key_local_protocol_error_not_retried() -> None:
    calls: list[httpx.Request] = []
    with pytest.raises(ModelError) as caught:
        _refusing_client("sk-key", calls).post("/embeddings", {"input": ["x"]})
    assert len(calls) == 1
    assert caught.value.status is None
    assert "LocalProtocolError" in caught.value.provider_message


def test_api_key_escaped_forms_scrubbed() -> None:
    key = "sk-back\\slash'quote"
    with pytest.raises(ModelError) as caught:
        _refusing_client(key, []).post("/embeddings", {"input": ["x"]})
    error = caught.value
    shown = (str(error), repr(error), error.provider_message)
    assert not any(part in text for part in ("sk-back", "slash") for text in shown), shown
    assert "***" in error.provider_message


@pytest.mark.parametrize("body", [False, True])
def test_api_key_echoed_across_the_message_limit_is_scrubbed_whole(body: bool) -> None:
    """A provider message is cut to its length limit after the key is scrubbed, so
    a key echoed where the cut falls leaves none of its characters."""
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 3
    said = "x" * 440 + f" Incorrect API key provided: {key}. See the docs."
    with ModelServer() as server:
        if body:  # the raw text of an answer that is not JSON
            server.inject("embeddings", Fault(status=401, body=said))
        else:
            server.fail("embeddings", 401, said)
        with pytest.raises(ModelError) as caught:
            Embedder("m", api_base=server.url, api_key=key, max_retries=0).embed(["x"])
    shown = (str(caught.value), repr(caught.value), caught.value.provider_message)
    assert not any(key[:12] in text for text in shown), shown
    assert len(caught.value.provider_message) <= 500
