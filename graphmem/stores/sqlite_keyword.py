"""Keyword search on the embedded store: which words to match, and how.

FTS5 holds each memory's words as its tokenizer folds them (case, and the accent
of a Latin letter carrying one). A query's words are tokenized by FTS5 too, in a
table of the connection's temp database with the same tokenizer, so a word is
counted and matched in exactly the form the index holds it.
"""

from __future__ import annotations

import json
import re
import sqlite3
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from graphmem.core.fusion import common_term_plans
from graphmem.core.validation import SearchFilters
from graphmem.errors import BackendError
from graphmem.stores.vector_cache import VectorCache

__all__ = ["SqliteKeyword", "ascii_tokens"]

_MAX_KNOWN_TERMS = 50_000
_LONGEST_KEPT_WORD = 64
"""Longer words are tokenized again by each search rather than kept: the cache's
bound is in words, and a word can be any length."""
_LONGEST_TOKENIZED_WORD = 16_384
"""Bytes (UTF-8) past which a non-ASCII word is not tokenized: FTS5 cuts a token at
32 KiB (``FTS5_MAX_TOKEN_SIZE``), possibly inside a character, and the cut token is
not text. Such a word is matched as given (FTS5 cuts the query's token as it cut
the memories') and never counted, so never common."""
_ASCII_TOKEN = re.compile(r"[0-9a-z]+")


def _fetch_all(cursor: sqlite3.Cursor) -> list[Any]:
    """``cursor.fetchall()``, a failure (such as a column that is not UTF-8) raised
    as BackendError."""
    try:
        return cursor.fetchall()
    except sqlite3.Error as exc:
        raise BackendError(f"SQLite failed: {exc}"[:300]) from exc


def ascii_tokens(word: str) -> tuple[str, ...]:
    """The tokens FTS5's ``unicode61`` tokenizer (the keyword index's) makes of an
    ASCII ``word``: its runs of letters and digits, lower-cased; every other ASCII
    character separates them.

    >>> ascii_tokens("user_ID"), ascii_tokens("E4711"), ascii_tokens("___")
    (('user', 'id'), ('e4711',), ())
    """
    return tuple(_ASCII_TOKEN.findall(word.lower()))


class SqliteKeyword:
    """Mixed into :class:`graphmem.stores.sqlite.SqliteStore`."""

    _term_counts: tuple[object, int, dict[str, int]]
    _word_tokens: dict[str, tuple[str, ...]]
    _vectors: VectorCache | None

    @abstractmethod
    def _run(self, name: str, **binds: Any) -> Any: ...

    @abstractmethod
    def _refresh_vectors(self, cache: VectorCache) -> None: ...

    def _match_terms(self, terms: Sequence[str]) -> list[list[str]]:
        # FTS5 reads a term's whole posting list; a stop word's is most of the
        # table (measured in bench/hybrid.py), so such terms are matched only when
        # the others find too few records. The counts cost a pass over each
        # term's postings too: they are kept while the index's structure record
        # is unchanged (it changes with every write). A word is counted as the
        # index holds it, tokenized by FTS5 itself (_index_tokens): a word FTS5
        # splits (`user_id`) is a phrase, with no count, never common.
        version = self._run("get-keyword-index-version").fetchone()
        if version is None or version[0] != self._term_counts[0]:
            total = int(self._run("count-keyword-documents").fetchone()[0])
            self._term_counts = (None if version is None else version[0], total, {})
        _, total, known = self._term_counts
        words: dict[tuple[str, ...], str] = {}  # one word per form in the index
        for word, tokens in zip(terms, self._index_tokens(terms), strict=True):
            if tokens is None:  # too long to tokenize: a form of its own, not counted
                words.setdefault(("", word), word)
            elif tokens:  # a word FTS5 reads no token in (`___`) matches nothing
                words.setdefault(tokens, word)
        single = {word: tokens[0] for tokens, word in words.items() if len(tokens) == 1}
        counts = {t: known[t] for t in single.values() if t in known}
        missing = [t for t in dict.fromkeys(single.values()) if t not in counts]
        if missing:
            found = dict(self._run("select-term-counts", terms=json.dumps(missing)).fetchall())
            fresh = {t: int(found.get(t, 0)) for t in missing}
            if len(known) + len(fresh) > _MAX_KNOWN_TERMS:
                known.clear()
            known.update(fresh)
            counts.update(fresh)
        by_word = {word: counts[token] for word, token in single.items()}
        return common_term_plans(list(words.values()), by_word, total)

    def _index_tokens(self, words: Sequence[str]) -> list[tuple[str, ...] | None]:
        """Each of ``words`` as the keyword index holds it: the tokens FTS5's
        tokenizer makes of it, which fold case and accents exactly as the index
        folds the memories' content. An ASCII word's are known without asking
        (:func:`ascii_tokens`); the others are tokenized by FTS5 in the
        connection's temp database (session.sql, ``graphmem_query_fts``, the
        index's tokenizer), inside the caller's read, and the short ones kept (the
        tokenizer does not change). None for a word too long to tokenize
        (:data:`_LONGEST_TOKENIZED_WORD`)."""
        kept = self._word_tokens
        tokens = [ascii_tokens(w) if w.isascii() else kept.get(w) for w in words]
        others = list(
            dict.fromkeys(
                w
                for w, t in zip(words, tokens, strict=True)
                if t is None and len(w.encode()) <= _LONGEST_TOKENIZED_WORD
            )
        )
        fresh: dict[str, tuple[str, ...]] = {}
        if others:
            self._run("reset-query-words")
            self._run("insert-query-words", words=json.dumps(others))
            read: list[list[str]] = [[] for _ in others]
            for place, token in _fetch_all(self._run("select-query-tokens")):
                read[int(place)].append(str(token))
            fresh = {word: tuple(found) for word, found in zip(others, read, strict=True)}
            short = {w: t for w, t in fresh.items() if len(w) <= _LONGEST_KEPT_WORD}
            if len(kept) + len(short) > _MAX_KNOWN_TERMS:
                kept.clear()
            kept.update(short)
        return [fresh.get(w) if t is None else t for w, t in zip(words, tokens, strict=True)]

    def _keyword_statement(self, filters: SearchFilters) -> str:
        # Under a user filter the match is tested against the user's rows before
        # BM25 is computed (select-keyword-hits-scoped; measured in bench/hybrid.py);
        # under a thread, agent or metadata filter, against the rows of that scope,
        # read through its index (select-keyword-hits-in-scope). Only a search
        # without any of these walks every hit of the store.
        if filters.user_id is not None:
            return "select-keyword-hits-scoped"
        if filters.thread_id is not None or filters.agent_id is not None or filters.metadata_filter:
            return "select-keyword-hits-in-scope"
        return "select-keyword-hits"

    def _keyword_read(
        self, filters: SearchFilters, binds: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        # Under a user, agent or thread filter, the in-process copy of the embeddings
        # (kept exact by the vector log, which also sees every new doc_id) names the
        # doc_ids passing the filters faster than the indexes can; only when it holds
        # every memory. They go to SQL as a byte map (one byte per doc_id in their
        # range), or as a JSON array when they are too far apart for that
        # (vector_cache.doc_map).
        cache = self._vectors
        name = self._keyword_statement(filters)
        if name == "select-keyword-hits" or filters.metadata_filter or cache is None:
            return name, binds
        self._refresh_vectors(cache)
        if not cache.complete:
            return name, binds
        slots = cache.select(binds, bool(binds["include_invalid"]))
        keyword = {"text_query": binds["text_query"], "k": binds["k"]}
        found = cache.doc_map(slots)
        if found is None:
            return "select-keyword-hits-in-docs", {**keyword, "doc_ids": cache.doc_ids_of(slots)}
        lo, hi, doc_map = found
        return "select-keyword-hits-in-map", {**keyword, "lo": lo, "hi": hi, "doc_map": doc_map}
