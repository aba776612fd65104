"""Stage 3: rerank. It only reorders, and only the first ``max_candidates`` hits.

The reranker sees the query and the raw content of at most
``reranker_max_candidates`` hits; it returns indexes with scores (``RerankResult``
objects, ``(index, score)`` pairs or mappings: :data:`SHAPES`), and those hits
are put in order of score (ties by their previous rank). Hits it leaves out keep
their relative order after the ones it scored; hits beyond the candidate limit
keep their place after those. No hit is added or dropped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral, Real

from graphmem.ai.protocols import RerankerProtocol
from graphmem.errors import GraphMemError, ModelError
from graphmem.search.ranked import Hit

__all__ = ["RerankConfig", "rerank"]


@dataclass(frozen=True)
class RerankConfig:
    """How results are reranked: no reranker (the default) keeps the order."""

    reranker: RerankerProtocol | None = None
    max_candidates: int = 50
    query: str = ""


def _reranker_error(message: str) -> ModelError:
    return ModelError(f"reranker: {message}", status=None, provider_message=message)


SHAPES = (
    "a RerankResult, an (index, relevance_score) pair or a mapping with "
    "'index' and 'relevance_score'"
)
"""What a reranker's answer may hold, as its error messages name them."""


def _index_and_score(item: object) -> tuple[object, object]:
    """``(index, score)`` of one item of a reranker's answer, not checked yet:
    a :class:`~graphmem.ai.protocols.RerankResult` (or any object with ``index``
    and ``relevance_score`` attributes), an ``(index, relevance_score)`` pair (a
    tuple or a list), or a mapping with those two keys.

    >>> _index_and_score((1, 0.5)), _index_and_score({"index": 0, "relevance_score": 2})
    ((1, 0.5), (0, 2))
    """
    if isinstance(item, Mapping):
        if "index" in item and "relevance_score" in item:
            return item["index"], item["relevance_score"]
    elif isinstance(item, (tuple, list)) and not hasattr(item, "relevance_score"):
        if len(item) == 2:
            return item[0], item[1]
    elif hasattr(item, "index") and hasattr(item, "relevance_score"):
        return item.index, item.relevance_score
    raise _reranker_error(f"returned {_shown(item)}, not {SHAPES}")


def _shown(item: object) -> str:
    """``item`` in an error message: its type and a bounded repr."""
    text = repr(item)
    return f"{type(item).__name__} {text if len(text) <= 80 else text[:77] + '...'}"


def _scores(answer: object, count: int) -> dict[int, float]:
    """``{index: score}`` from a reranker's answer, checked."""
    if isinstance(answer, (str, bytes)) or not hasattr(answer, "__iter__"):
        raise _reranker_error(f"returned {type(answer).__name__}, not a list of results")
    scores: dict[int, float] = {}
    for item in answer:
        index, score = _index_and_score(item)
        # numbers.Integral / Real: numpy's scalars (np.argsort, np.float32) count.
        if (
            isinstance(index, bool)
            or not isinstance(index, Integral)
            or not 0 <= int(index) < count
        ):
            raise _reranker_error(f"returned index {index!r}, not one of 0..{count - 1}")
        index = int(index)
        if index in scores:
            raise _reranker_error(f"returned index {index} twice")
        if isinstance(score, bool) or not isinstance(score, Real):
            raise _reranker_error(f"returned score {score!r} for index {index}, not a number")
        if not math.isfinite(score):
            raise _reranker_error(f"returned score {score!r} for index {index}, not finite")
        scores[index] = float(score)
    return scores


def rerank(
    hits: list[Hit], config: RerankConfig, texts: Mapping[str, str] | None = None
) -> list[Hit]:
    """``hits`` reordered by the configured reranker; unchanged without one.

    Args:
        hits: ranked hits, best first.
        config: the reranker, its candidate limit and the query.
        texts: the content of each hit's record.

    Raises:
        ModelError: the reranker failed, or answered with an unknown or repeated
            index or a score that is not a finite number.

    >>> rerank([("a", 0.1), ("b", 0.2)], RerankConfig())
    [('a', 0.1), ('b', 0.2)]
    """
    reranker = config.reranker
    if reranker is None or len(hits) < 1:
        return hits
    head, tail = hits[: config.max_candidates], hits[config.max_candidates :]
    documents = [(texts or {}).get(record_id, "") for record_id, _ in head]
    try:
        answer = reranker.rerank(config.query, documents)
    except GraphMemError:
        raise
    except Exception as error:  # a caller's reranker object: report it as a model failure
        raise _reranker_error(f"{type(error).__name__}: {error}") from error
    scores = _scores(answer, len(head))
    scored = sorted(scores, key=lambda i: (-scores[i], i))
    rest = [i for i in range(len(head)) if i not in scores]
    return [head[i] for i in scored + rest] + tail
