"""graphmem.Embedder over the OpenAI-compatible /embeddings API, through ModelServer."""

from __future__ import annotations

import json
import socket
import time

import numpy as np
import pytest

from graphmem import Embedder, GraphMemError, GraphMemory, HashingEmbedder, ModelError
from graphmem.core.budget import estimate_tokens
from graphmem.errors import InvalidArgumentError
from graphmem.testing import Fault, ModelServer


def _embedder(server: ModelServer, **kwargs: object) -> Embedder:
    options: dict[str, object] = {"api_base": server.url, "max_retries": 2, **kwargs}
    return Embedder("test-embed", **options)  # type: ignore[arg-type]


def test_embedder_http_vectors_match_server(server: ModelServer) -> None:
    vectors = _embedder(server).embed(["tea", "coffee beans"])
    expected = HashingEmbedder(dim=16).embed(["tea", "coffee beans"])
    assert vectors.shape == (2, 16) and vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, expected, atol=1e-6)


def test_embedder_http_request_shape(server: ModelServer) -> None:
    _embedder(server, api_key="sk-test", embedding_dimension=16).embed(["a"])
    (request,) = server.requests_to("embeddings")
    assert request.path == "/v1/embeddings"
    assert request.body == {
        "model": "test-embed",
        "input": ["a"],
        "encoding_format": "float",
        "dimensions": 16,
    }
    assert request.headers["authorization"] == "Bearer sk-test"


def test_embedder_http_batches_keep_order(server: ModelServer) -> None:
    texts = [f"text number {i}" for i in range(5)]
    vectors = _embedder(server, batch_size=2).embed(texts)
    assert [len(r.body["input"]) for r in server.requests_to("embeddings")] == [2, 2, 1]
    np.testing.assert_allclose(vectors, HashingEmbedder(dim=16).embed(texts), atol=1e-6)


def test_embedder_http_batches_bounded_by_tokens(server: ModelServer) -> None:
    """A batch closes at ``max_batch_tokens`` estimated tokens (four characters a
    token) before ``batch_size``; a text over the bound goes alone."""
    texts = [f"{i} " + "x" * 38 for i in range(5)] + ["long " + "y" * 400, "last"]
    vectors = _embedder(server, batch_size=4, max_batch_tokens=25).embed(texts)
    sent = [r.body["input"] for r in server.requests_to("embeddings")]
    assert sent == [texts[0:2], texts[2:4], texts[4:5], texts[5:6], texts[6:7]]
    np.testing.assert_allclose(vectors, HashingEmbedder(dim=16).embed(texts), atol=1e-6)


def test_embedder_http_default_batches_under_openai_token_limit(server: ModelServer) -> None:
    texts = [f"note {i} " + "lorem ipsum dolor sit amet " * 185 for i in range(256)]
    vectors = _embedder(server).embed(texts)
    requests = server.requests_to("embeddings")
    assert len(requests) > 1
    assert all(sum(estimate_tokens(t) for t in r.body["input"]) < 300_000 for r in requests)
    assert [t for r in requests for t in r.body["input"]] == texts
    np.testing.assert_allclose(vectors, HashingEmbedder(dim=16).embed(texts), atol=1e-6)


def test_embedder_http_prefixes(server: ModelServer) -> None:
    embedder = _embedder(server, query_prefix="search_query: ", document_prefix="doc: ")
    embedder.embed(["pizza"])
    query = embedder.embed_query("food?")
    sent = [r.body["input"] for r in server.requests_to("embeddings")]
    assert sent == [["doc: pizza"], ["search_query: food?"]]
    assert query.shape == (16,)


@pytest.mark.parametrize(("normalize", "expected"), [(True, [0.6, 0.8]), (False, [3.0, 4.0])])
def test_embedder_http_normalize(
    server: ModelServer, normalize: bool, expected: list[float]
) -> None:
    server.inject("embeddings", Fault(body='{"data": [{"index": 0, "embedding": [3, 4]}]}'))
    vectors = _embedder(server, normalize=normalize).embed(["x"])
    np.testing.assert_allclose(vectors, [expected], atol=1e-6)


def test_embedder_http_name_and_dimension(server: ModelServer) -> None:
    embedder = _embedder(server)
    assert (embedder.name, embedder.dimension) == ("test-embed", None)
    embedder.embed(["x"])
    assert embedder.dimension == 16


@pytest.mark.parametrize("status", [429, 500, 502, 503])
def test_embedder_http_retries_then_succeeds(server: ModelServer, status: int) -> None:
    server.fail("embeddings", status, times=2)
    vectors = Embedder("m", api_base=server.url, max_retries=2).embed(["x"])
    assert vectors.shape == (1, 16)
    assert len(server.requests_to("embeddings")) == 3


def test_embedder_http_gives_up_after_bounded_attempts(server: ModelServer) -> None:
    server.fail("embeddings", 500, "model overloaded", times=10)
    with pytest.raises(ModelError) as caught:
        Embedder("m", api_base=server.url, max_retries=2).embed(["x"])
    assert len(server.requests_to("embeddings")) == 3
    assert caught.value.status == 500
    assert caught.value.provider_message == "model overloaded"
    assert "model overloaded" in str(caught.value) and "500" in str(caught.value)
    assert isinstance(caught.value, GraphMemError)


def test_embedder_http_honours_retry_after(server: ModelServer) -> None:
    server.fail("embeddings", 429, "slow down", retry_after=0.4)
    started = time.monotonic()
    Embedder("m", api_base=server.url, max_retries=1).embed(["x"])
    assert time.monotonic() - started >= 0.4


def test_embedder_http_client_error_not_retried(server: ModelServer) -> None:
    server.fail("embeddings", 400, "input too long", times=5)
    with pytest.raises(ModelError) as caught:
        _embedder(server).embed(["x"])
    assert caught.value.status == 400 and caught.value.provider_message == "input too long"
    assert len(server.requests_to("embeddings")) == 1


def test_embedder_http_timeout_is_bounded(server: ModelServer) -> None:
    server.stall("embeddings", 6.0, times=5)
    started = time.monotonic()
    with pytest.raises(ModelError, match=r"no answer within 0\.3 s") as caught:
        Embedder("m", api_base=server.url, timeout=0.3, max_retries=1).embed(["x"])
    assert caught.value.status is None
    assert time.monotonic() - started < 6.0  # gave up long before the stalled answer
    assert len(server.requests_to("embeddings")) == 2


def test_embedder_http_slow_once_then_retried(server: ModelServer) -> None:
    server.stall("embeddings", 2.0)
    vectors = Embedder("m", api_base=server.url, timeout=0.3, max_retries=1).embed(["x"])
    assert vectors.shape == (1, 16)


def test_embedder_http_disconnect_retried(server: ModelServer) -> None:
    server.disconnect("embeddings")
    assert _embedder(server).embed(["x"]).shape == (1, 16)
    assert len(server.requests_to("embeddings")) == 2


def test_embedder_http_connection_refused() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = Embedder("m", api_base=f"http://127.0.0.1:{port}/v1", max_retries=1)
    with pytest.raises(ModelError, match="ConnectError") as caught:
        embedder.embed(["x"])
    assert caught.value.status is None


def test_embedder_http_malformed_json(server: ModelServer) -> None:
    server.send_malformed("embeddings")
    with pytest.raises(ModelError, match="not JSON") as caught:
        _embedder(server).embed(["x"])
    assert caught.value.status == 200
    assert len(server.requests_to("embeddings")) == 1


def test_embedder_http_wrong_vector_count(server: ModelServer) -> None:
    server.drop_vector()
    with pytest.raises(ModelError, match="2 vectors for 3 texts"):
        _embedder(server).embed(["a", "b", "c"])


def test_embedder_http_wrong_dimension(server: ModelServer) -> None:
    server.wrong_dimension(12)
    with pytest.raises(ModelError, match="12 dimensions, expected 16"):
        _embedder(server, embedding_dimension=16).embed(["a"])


def test_embedder_http_dimension_changes_between_calls(server: ModelServer) -> None:
    embedder = _embedder(server)
    embedder.embed(["a"])
    server.wrong_dimension(20)
    with pytest.raises(ModelError, match="20 dimensions, expected 16"):
        embedder.embed(["b"])


def test_embedder_http_non_finite(server: ModelServer) -> None:
    server.non_finite()
    with pytest.raises(ModelError, match="non-finite"):
        _embedder(server).embed(["a", "b"])


@pytest.mark.parametrize("index", [None, "1", 1.0, True, [1]])
def test_embedder_http_index_not_an_int_is_model_error(server: ModelServer, index: object) -> None:
    data = [{"index": 0, "embedding": [1.0, 0.0]}, {"index": index, "embedding": [0.0, 1.0]}]
    server.inject("embeddings", Fault(body=json.dumps({"data": data})))
    with pytest.raises(ModelError, match="is not an int") as caught:
        _embedder(server, max_retries=0).embed(["a", "b"])
    assert caught.value.status == 200


def test_embedder_http_index_missing_is_model_error(server: ModelServer) -> None:
    data = [{"index": 0, "embedding": [1.0, 0.0]}, {"embedding": [0.0, 1.0]}]
    server.inject("embeddings", Fault(body=json.dumps({"data": data})))
    with pytest.raises(ModelError) as caught:
        _embedder(server, max_retries=0).embed(["a", "b"])
    assert caught.value.status == 200


def test_embedder_http_api_key_never_in_errors() -> None:
    secret = "sk-live-0123456789abcdef"
    with ModelServer(api_key="the-right-key") as server:
        embedder = Embedder("m", api_base=server.url, api_key=secret)
        with pytest.raises(ModelError) as caught:
            embedder.embed(["x"])
    error = caught.value
    assert error.status == 401
    assert "Incorrect API key provided" in error.provider_message
    for shown in (str(error), repr(error), error.provider_message, repr(embedder)):
        assert secret not in shown


def test_embedder_http_key_accepted(server: ModelServer) -> None:
    with ModelServer(api_key="k1") as keyed:
        assert Embedder("m", api_base=keyed.url, api_key="k1").embed(["x"]).shape == (1, 64)


@pytest.mark.parametrize(
    ("argument", "kwargs"),
    [
        ("api_base", {"api_base": "ftp://example"}),
        ("embedding_dimension", {"embedding_dimension": 0}),
        ("batch_size", {"batch_size": 0}),
        ("max_batch_tokens", {"max_batch_tokens": 0}),
        ("max_batch_tokens", {"max_batch_tokens": True}),
        ("max_retries", {"max_retries": -1}),
        ("timeout", {"timeout": 0}),
        ("query_prefix", {"query_prefix": 3}),
    ],
)
def test_embedder_http_bad_arguments(argument: str, kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        Embedder("m", **kwargs)  # type: ignore[arg-type]
    assert caught.value.argument == argument


def test_embedder_http_in_graphmemory(server: ModelServer, tmp_path) -> None:
    embedder = _embedder(server)
    with GraphMemory(tmp_path / "h.db", embedder=embedder) as memory:
        memory.add_memory("green tea in the morning", memory_id="tea")
        memory.add_memory("tax forms due in april", memory_id="tax")
        assert memory.search("morning tea", max_results=1)[0].id == "tea"


def test_embedder_http_failure_writes_nothing(server: ModelServer, tmp_path) -> None:
    with GraphMemory(tmp_path / "h.db", embedder=_embedder(server)) as memory:
        server.fail("embeddings", 503, times=3)
        with pytest.raises(ModelError):
            memory.add_memory("never stored")
        assert memory.list_memories() == []
