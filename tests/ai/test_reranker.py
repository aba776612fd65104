"""graphmem.Reranker over /rerank, through ModelServer."""

from __future__ import annotations

import asyncio
import math

import pytest

from graphmem import ModelError, Reranker, RerankerProtocol, RerankResult
from graphmem.errors import InvalidArgumentError
from graphmem.testing import Fault, ModelServer

DOCS = ["tax forms are due in april", "the dog likes long walks", "walks with the dog at dawn"]


def _reranker(server: ModelServer) -> Reranker:
    return Reranker("test-rerank", api_base=server.url, api_key="sk-r", max_retries=1)


def test_reranker_orders_by_relevance(server: ModelServer) -> None:
    results = _reranker(server).rerank("dog walks", DOCS)
    assert sorted(r.index for r in results) == [0, 1, 2]
    assert results[-1].index == 0  # shares no word with the query
    scores = [r.relevance_score for r in results]
    assert scores == sorted(scores, reverse=True) and all(map(math.isfinite, scores))


def test_reranker_request_shape_and_top_n(server: ModelServer) -> None:
    results = _reranker(server).rerank("dog walks", DOCS, top_n=1)
    assert len(results) == 1 and isinstance(results[0], RerankResult)
    (request,) = server.requests_to("rerank")
    assert request.body == {
        "model": "test-rerank",
        "query": "dog walks",
        "documents": DOCS,
        "top_n": 1,
    }
    assert request.headers["authorization"] == "Bearer sk-r"


def test_reranker_async(server: ModelServer) -> None:
    results = asyncio.run(_reranker(server).arerank("dog walks", DOCS))
    assert results == _reranker(server).rerank("dog walks", DOCS)


def test_reranker_no_documents_no_request(server: ModelServer) -> None:
    assert _reranker(server).rerank("q", []) == []
    assert server.requests == []


def test_reranker_retries_5xx(server: ModelServer) -> None:
    server.fail("rerank", 502)
    assert len(_reranker(server).rerank("dog", DOCS)) == 3


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"results": [{"index": 7, "relevance_score": 0.5}]}', "not in 0..2"),
        ('{"results": [{"index": 0, "relevance_score": "high"}]}', "not a number"),
        ('{"results": [{"index": 0, "relevance_score": NaN}]}', "not finite"),
        (
            '{"results": [{"index": 1, "relevance_score": 1}, {"index": 1, "relevance_score": 0}]}',
            "appears twice",
        ),
        ('{"data": []}', "no 'results' list"),
        ("<html>", "not JSON"),
    ],
)
def test_reranker_rejects_bad_answers(server: ModelServer, body: str, message: str) -> None:
    server.inject("rerank", Fault(body=body))
    with pytest.raises(ModelError, match=message):
        _reranker(server).rerank("dog", DOCS)


def test_reranker_bad_arguments(server: ModelServer) -> None:
    with pytest.raises(InvalidArgumentError, match="documents"):
        _reranker(server).rerank("q", "not a list")
    with pytest.raises(InvalidArgumentError, match="top_n"):
        _reranker(server).rerank("q", DOCS, top_n=0)
    with pytest.raises(InvalidArgumentError, match="model"):
        Reranker("")
    assert server.requests == []


def test_reranker_satisfies_protocol(server: ModelServer) -> None:
    assert isinstance(_reranker(server), RerankerProtocol)
