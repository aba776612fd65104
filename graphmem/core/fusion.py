"""Keyword terms of a query, and weighted reciprocal rank fusion of rankings."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence

__all__ = [
    "COMMON_FRACTION",
    "MAX_TERMS",
    "common_term_plans",
    "keyword_terms",
    "reciprocal_rank_fusion",
    "term_match_scores",
]

COMMON_FRACTION = 0.1
"""A term found in more than this fraction of the documents is a stop word."""

COMMON_MIN_DOCUMENTS = 1000
"""Below this many documents, no term counts as a stop word."""

MAX_TERMS = 32
"""Query terms a keyword search uses (the first ones)."""

# A word's letters, digits and ``_``, with the combining marks among them: the
# index's tokenizer keeps a mark inside its word (and folds it away), so a mark
# left over after NFC (``q\u0301``) must not split a word in two.
_WORD = re.compile(r"[\w\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")


def keyword_terms(text: str) -> list[str]:
    """The distinct lower-case words of ``text``, in order (at most :data:`MAX_TERMS`).

    Only letters, digits and ``_`` survive, so a term never holds a quote,
    operator or bracket of any full-text query syntax.

    >>> keyword_terms('Which "DB" does the db-service use? OR NOT')
    ['which', 'db', 'does', 'the', 'service', 'use', 'or', 'not']
    """
    seen: dict[str, None] = {}
    for word in _WORD.findall(_lower(text)):
        seen.setdefault(word, None)
    return list(seen)[:MAX_TERMS]


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str]], weights: Sequence[float], c: float
) -> list[tuple[str, float]]:
    """Ids by fused score ``sum(weight / (c + rank))`` (ranks from 1), ties by id.
    A ranking of weight 0 adds nothing, not even its ids at score 0.

    >>> reciprocal_rank_fusion([["a", "b"], ["b", "c"]], [1.0, 1.0], 0.0)
    [('b', 1.5), ('a', 1.0), ('c', 0.5)]
    >>> reciprocal_rank_fusion([["a", "b"], ["c"]], [0.0, 1.0], 60.0)
    [('c', 0.01639344262295082)]
    """
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        if weight == 0:
            continue
        for rank, record_id in enumerate(ranking, start=1):
            scores[record_id] = scores.get(record_id, 0.0) + weight / (c + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def term_match_scores(
    terms: Sequence[str], documents: Mapping[str, str], k: int
) -> list[tuple[str, float]]:
    """A simple deterministic keyword ranking (the in-memory store's): each
    document scores the sum, over the query terms among its words, of the term's
    inverse document frequency ``ln(1 + (N - df + 0.5) / (df + 0.5))``; documents
    matching no term are left out; the first ``k`` by score, ties by id.

    >>> docs = {"a": "Pizza!", "b": "pizza oven", "c": "x"}
    >>> ranked = term_match_scores(["pizza", "oven"], docs, 5)
    >>> [(doc_id, round(score, 3)) for doc_id, score in ranked]
    [('b', 1.451), ('a', 0.47)]
    """
    words = {doc_id: set(keyword_terms_all(text)) for doc_id, text in documents.items()}
    total = len(words)
    idf = {}
    for term in dict.fromkeys(terms):
        df = sum(1 for found in words.values() if term in found)
        idf[term] = math.log(1 + (total - df + 0.5) / (df + 0.5))
    scores = {
        doc_id: sum(idf[t] for t in idf if t in found)
        for doc_id, found in words.items()
        if any(t in found for t in idf)
    }
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]


def keyword_terms_all(text: str) -> list[str]:
    """Every lower-case word of ``text`` (no limit, duplicates kept)."""
    return _WORD.findall(_lower(text))


def _lower(text: str) -> str:
    """``text`` composed (NFC: an accent typed as a letter and a combining mark is
    the accented letter the content holds) and in lower case, the dotted capital I
    (``İ``) as a plain ``i`` (``str.lower`` gives it a combining dot).

    >>> _lower("İstanbul"), _lower("E\u0301COLE") == "\u00e9cole"
    ('istanbul', True)
    """
    return unicodedata.normalize("NFC", text).lower().replace("i\u0307", "i")


def common_term_plans(
    terms: Sequence[str], doc_counts: Mapping[str, int], total: int
) -> list[list[str]]:
    """The term lists a keyword search matches in turn, the next one only when
    the one before finds fewer records than asked for: first ``terms`` without
    those found in more than :data:`COMMON_FRACTION` of the ``total`` documents
    (stop words such as "the" or "which": they weigh little in BM25 but cost the
    most to match), then every term. In a store of fewer than
    :data:`COMMON_MIN_DOCUMENTS` documents no term is common. A term that
    ``doc_counts`` does not hold (a phrase such as ``user_id``, which the index
    holds as two words) is never common; no term is ever left out of the last
    list, whatever its count.

    >>> common_term_plans(["the", "kestrel", "of"], {"the": 900, "kestrel": 2, "of": 500}, 1000)
    [['kestrel'], ['the', 'kestrel', 'of']]
    >>> common_term_plans(["the", "of"], {"the": 900, "of": 500}, 1000)
    [['of'], ['the', 'of']]
    >>> common_term_plans(["the", "heron"], {"the": 900, "heron": 0}, 1000)
    [['heron'], ['the', 'heron']]
    >>> common_term_plans(["pizza", "kestrel"], {"pizza": 2, "kestrel": 0}, 3)
    [['pizza', 'kestrel']]
    """
    every = list(terms)
    if total < COMMON_MIN_DOCUMENTS or not every:
        return [every] if every else []
    rare = [t for t in every if doc_counts.get(t, 0) <= COMMON_FRACTION * total]
    if not rare:  # only common words (each counted): the rarest first
        rare = [min(every, key=lambda t: doc_counts[t])]
    return [rare, every] if rare != every else [every]
