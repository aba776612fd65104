"""The embedded store's in-process copy of the embeddings stays exact.

A handle that has searched once holds the embeddings in memory
(graphmem.stores.vector_cache). Every write must be seen by its next search,
whoever makes it: this handle, another handle, another process, or a DBA's DML
on the file (the vector log triggers of install.sql). Each test compares the
cached handle's answers with what the file holds now, read by a store without
the copy, and with the answer the change must produce.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from unittest import mock

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem import GraphMemory
from graphmem.core.fusion import keyword_terms
from graphmem.core.validation import SearchFilters
from graphmem.core.vector import cosine_distances, top_k
from graphmem.stores import vector_cache
from graphmem.stores.sqlite import SqliteStore
from graphmem.stores.sqlite_schema import SCHEMA_VERSION
from graphmem.stores.vector_cache import VectorCache

DIM = 4


class VectorText:
    """Content ``"x y z w"`` (numbers) embeds to that vector; anything else to zeros."""

    name = "vector-text"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = []
        for text in texts:
            parts = text.split()
            try:
                rows.append([float(p) for p in parts] if len(parts) == DIM else [0.0] * DIM)
            except ValueError:
                rows.append([0.0] * DIM)
        return np.asarray(rows, dtype=np.float32)


def _open(path: Path) -> GraphMemory:
    return GraphMemory(path, embedder=VectorText())


def _blob(*values: float) -> bytes:
    return np.asarray(values, dtype=np.float32).tobytes()


def _ids(memory: GraphMemory, query: str, **kw: object) -> list[str]:
    return [r.id for r in memory.search(query, max_results=10, num_hops=0, **kw)]  # type: ignore[arg-type]


def _file_answer(
    path: Path, query: str, k: int = 10, user_id: str | None = None, include_invalid: bool = False
) -> list[str]:
    """The top k read from the file itself, by a store without the in-process copy."""
    store = SqliteStore(path, "graphmem", vector_cache=False)
    try:
        vector = VectorText().embed([query])[0]
        return [
            i for i, _ in store.nearest(SearchFilters(user_id=user_id), vector, k, include_invalid)
        ]
    finally:
        store.close()


def _hybrid_halves(store: SqliteStore, query: str, user_id: str | None) -> tuple[list, list]:
    """Both rankings of a hybrid search."""
    filters = SearchFilters(user_id=user_id)
    vector = store.nearest(filters, VectorText().embed([query])[0], 50, False)
    found = store.keyword(filters, keyword_terms(query), 50, False)
    return vector, found


def _file_halves(path: Path, query: str, user_id: str | None) -> tuple[list, list]:
    store = SqliteStore(path, "graphmem", vector_cache=False)
    try:
        return _hybrid_halves(store, query, user_id)
    finally:
        store.close()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """A file with three memories: a on axis 1, b on axis 2, c on axis 3."""
    p = tmp_path / "v.db"
    with _open(p) as memory:
        memory.add_memory("1 0 0 0", memory_id="a", user_id="u")
        memory.add_memory("0 1 0 0", memory_id="b", user_id="u")
        memory.add_memory("0 0 1 0", memory_id="c", user_id="u")
    return p


def test_cache_sees_this_handles_writes(path: Path) -> None:
    with _open(path) as memory:
        assert _ids(memory, "0 0 0 1")[:3] == ["a", "b", "c"]  # all at distance 1: by id
        memory.add_memory("0 0 0 1", memory_id="d", user_id="u")
        assert _ids(memory, "0 0 0 1")[0] == "d"
        memory.update_memory("d", content="1 0 0 0")
        assert _ids(memory, "1 0 0 0")[:2] == ["a", "d"]
        assert _ids(memory, "0 0 0 1") == ["a", "b", "c", "d"]  # d left axis 4
        memory.delete_memory("a")
        assert _ids(memory, "1 0 0 0") == ["d", "b", "c"]
        assert _ids(memory, "1 0 0 0") == _file_answer(path, "1 0 0 0")


def test_cache_sees_another_handles_writes(path: Path) -> None:
    with _open(path) as reader, _open(path) as writer:
        assert _ids(reader, "0 1 0 0")[0] == "b"
        writer.add_memory("0 0.9 0.1 0", memory_id="e", user_id="u")
        writer.update_memory("b", content="0 0 0 1")
        assert _ids(reader, "0 1 0 0")[0] == "e"
        writer.delete_memory("e")
        assert _ids(reader, "0 1 0 0") == _file_answer(path, "0 1 0 0")
        assert "e" not in _ids(reader, "0 1 0 0")


def test_cache_sees_another_process_writes(path: Path) -> None:
    with _open(path) as reader:
        assert _ids(reader, "0 0 1 0")[0] == "c"
        script = textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(Path(__file__).parent)!r})
            from test_vector_cache import _open
            with _open({str(path)!r}) as m:
                m.add_memory("0 0 1 0.01", memory_id="p", user_id="u")
                m.update_memory("c", content="1 1 0 0")
            """
        )
        subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
        assert _ids(reader, "0 0 1 0")[0] == "p"
        assert _ids(reader, "0 0 1 0") == _file_answer(path, "0 0 1 0")


def test_cache_sees_dba_dml(path: Path) -> None:
    with _open(path) as reader:
        assert _ids(reader, "0 0 0 1") == ["a", "b", "c"]
        conn = sqlite3.connect(path)
        with conn:  # a new row, written by hand
            conn.execute(
                "INSERT INTO graphmem_memory (record_id, record_type, content, user_id, "
                "created_at, embedding) VALUES ('z', 'memory', 'by hand', 'u', "
                "'2024-01-01T00:00:00.000000Z', ?)",
                (_blob(0, 0, 0, 1),),
            )
        assert _ids(reader, "0 0 0 1")[0] == "z"
        with conn:  # an embedding changed by hand
            conn.execute(
                "UPDATE graphmem_memory SET embedding = ? WHERE record_id = 'a'",
                (_blob(0, 0, 0.5, 1),),
            )
        assert _ids(reader, "0 0 0 1")[:2] == ["z", "a"]
        with conn:  # REPLACE deletes the old row without a DELETE trigger
            conn.execute(
                "REPLACE INTO graphmem_memory (record_id, record_type, content, user_id, "
                "created_at, embedding) VALUES ('z', 'memory', 'again', 'u', "
                "'2024-01-01T00:00:00.000000Z', ?)",
                (_blob(1, 0, 0, 0),),
            )
        assert _ids(reader, "1 0 0 0")[0] == "z"
        with conn:  # an embedding removed, a row deleted
            conn.execute("UPDATE graphmem_memory SET embedding = NULL WHERE record_id = 'b'")
            conn.execute("DELETE FROM graphmem_memory WHERE record_id = 'c'")
        assert _ids(reader, "0 1 0 0") == ["a", "z"]
        assert _ids(reader, "0 1 0 0") == _file_answer(path, "0 1 0 0")
        conn.close()


def test_cache_sees_dba_dml_on_filter_columns(path: Path) -> None:
    """The copy also holds the search-filter columns: their changes are logged too."""
    with _open(path) as reader:
        assert _ids(reader, "1 0 0 0", user_id="u") == ["a", "b", "c"]
        conn = sqlite3.connect(path)
        with conn:  # another user
            conn.execute("UPDATE graphmem_memory SET user_id = 'v' WHERE record_id = 'a'")
        assert _ids(reader, "1 0 0 0", user_id="u") == ["b", "c"]
        assert _ids(reader, "1 0 0 0", user_id="v") == ["a"]
        with conn:  # expired
            conn.execute(
                "UPDATE graphmem_memory SET expires_at = '2000-01-01T00:00:00.000000Z' "
                "WHERE record_id = 'b'"
            )
        assert _ids(reader, "1 0 0 0", user_id="u") == ["c"]
        with conn:  # invalid: the link triggers write the status
            conn.execute(
                "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
                "opposite_relation_type, created_at) VALUES ('ac', 'a', 'c', 'supersedes', "
                "'is_superseded_by', '2024-01-01T00:00:00.000000Z')"
            )
        assert _ids(reader, "1 0 0 0", user_id="u") == []
        assert _ids(reader, "1 0 0 0", user_id="u", include_invalid_results=True) == ["c"]
        with conn:  # another record type
            conn.execute("UPDATE graphmem_memory SET record_type = 'fact' WHERE record_id = 'a'")
        assert _ids(reader, "1 0 0 0", record_types=["memory"]) == []
        assert _ids(reader, "1 0 0 0", record_types=["fact"]) == ["a"]
        conn.close()


def test_cache_rebuilt_when_log_entries_are_gone(path: Path) -> None:
    """Entries the copy has not applied were trimmed (here: deleted by hand, all but
    the newest, which the log keeps to number the next ones)."""
    with _open(path) as reader:
        assert _ids(reader, "0 0 0 1") == ["a", "b", "c"]
        conn = sqlite3.connect(path)
        with conn:
            for blob in (_blob(0, 0, 1, 0), _blob(0, 0, 0, 1)):
                conn.execute(
                    "UPDATE graphmem_memory SET embedding = ? WHERE record_id = 'c'", (blob,)
                )
            conn.execute(
                "DELETE FROM graphmem_vector_log "
                "WHERE seq < (SELECT MAX(seq) FROM graphmem_vector_log)"
            )
            conn.execute(
                "UPDATE graphmem_memory SET embedding = ? WHERE record_id = 'b'",
                (_blob(0, 0, 1, 1),),
            )
        conn.close()
        assert _ids(reader, "0 0 0 1")[:2] == ["c", "b"]


def test_cache_rebuilt_when_an_unread_entry_other_than_the_oldest_is_gone(path: Path) -> None:
    """A DBA deletes one entry the copy has not read, between others: the numbers
    left have a gap, and the copy reloads instead of missing that memory."""
    with _open(path) as reader, _open(path) as writer:
        assert _ids(reader, "0 0 0 1") == ["a", "b", "c"]
        writer.add_memory("0 0 0 1", memory_id="d", user_id="u")
        writer.add_memory("0 0 1 0", memory_id="e", user_id="u")  # a later entry
        conn = sqlite3.connect(path)
        with conn:
            conn.execute("DELETE FROM graphmem_vector_log WHERE record_id = 'd'")
            left = [r[0] for r in conn.execute("SELECT record_id FROM graphmem_vector_log")]
        conn.close()
        assert left[-1] == "e" and "d" not in left
        assert _ids(reader, "0 0 0 1")[0] == "d"
        assert _ids(reader, "0 0 0 1") == _file_answer(path, "0 0 0 1")


def test_log_is_trimmed(tmp_path: Path) -> None:
    """Every 1024th entry trims the log to its last 65536: its size stays bounded."""
    conn = sqlite3.connect(tmp_path / "t.db")
    GraphMemory(tmp_path / "t.db", embedder=VectorText()).close()
    with conn:
        conn.executemany(
            "INSERT INTO graphmem_vector_log (record_id) VALUES (?)",
            ((f"r{i}",) for i in range(70_000)),
        )
    first, last, count = conn.execute(
        "SELECT MIN(seq), MAX(seq), COUNT(*) FROM graphmem_vector_log"
    ).fetchone()
    conn.close()
    assert last == 70_000
    assert 65_536 <= count < 65_536 + 1024 and first == last - count + 1


# against the file, on random writes ---------------------------------------------------

_op = st.tuples(
    st.sampled_from(
        [
            "add",
            "update",
            "delete",
            "dba-update",
            "dba-null",
            "dba-user",
            "dba-expire",
            "link",
            "unlink",
        ]
    ),
    st.integers(0, 7),
    st.lists(st.integers(-2, 2), min_size=DIM, max_size=DIM),
)


@settings(max_examples=60, deadline=None)
@given(
    ops=st.lists(_op, min_size=1, max_size=12),
    query=st.lists(st.integers(-2, 2), min_size=DIM, max_size=DIM),
    sparse=st.booleans(),
)
def test_cached_search_equals_file_search(
    tmp_path_factory: pytest.TempPathFactory,
    ops: list[tuple[str, int, list[int]]],
    query: list[int],
    sparse: bool,
) -> None:
    path = tmp_path_factory.mktemp("v") / "r.db"
    text = " ".join(str(q) for q in query)
    # sparse: the keyword doc ids go to SQL as a JSON array instead of a byte map
    per_doc, least = (
        (0, 0) if sparse else (vector_cache.MAP_BYTES_PER_DOC, vector_cache.MAP_MIN_BYTES)
    )
    with (
        _open(path) as memory,
        mock.patch.object(vector_cache, "MAP_BYTES_PER_DOC", per_doc),
        mock.patch.object(vector_cache, "MAP_MIN_BYTES", least),
    ):
        conn = sqlite3.connect(path)
        for op, n, values in ops:
            rid, content = f"m{n}", " ".join(str(v) for v in values)
            _apply(memory, conn, op, rid, content, values)
            assert _ids(memory, text, user_id="u") == _file_answer(path, text, user_id="u")
            assert _ids(memory, text) == _file_answer(path, text)
            for user in ("u", None):
                halves = _hybrid_halves(memory._store, text, user)  # type: ignore[arg-type]
                assert halves == _file_halves(path, text, user)
            assert _ids(memory, text, include_invalid_results=True) == _file_answer(
                path, text, include_invalid=True
            )
        conn.close()


def _apply(
    memory: GraphMemory,
    conn: sqlite3.Connection,
    op: str,
    rid: str,
    content: str,
    values: list[int],
) -> None:
    present = conn.execute("SELECT 1 FROM graphmem_memory WHERE record_id = ?", (rid,)).fetchone()
    if op == "add" and not present:
        memory.add_memory(content, memory_id=rid, user_id="u")
    elif op == "update" and present:
        memory.update_memory(rid, content=content)
    elif op == "delete" and present:
        memory.delete_memory(rid)
    elif present:
        with conn:
            _dba(conn, op, rid, values)


def _dba(conn: sqlite3.Connection, op: str, rid: str, values: list[int]) -> None:
    """DML by hand on an existing memory: its vector, user, expiry, or validity."""
    if op in ("dba-update", "dba-null"):
        blob = None if op == "dba-null" else _blob(*values)
        conn.execute("UPDATE graphmem_memory SET embedding = ? WHERE record_id = ?", (blob, rid))
    elif op == "dba-user":  # to user v and back
        conn.execute(
            "UPDATE graphmem_memory SET user_id = CASE user_id WHEN 'u' THEN 'v' ELSE 'u' END "
            "WHERE record_id = ?",
            (rid,),
        )
    elif op == "dba-expire":  # expired or not, by the sign of the first value
        when = "2000-01-01T00:00:00.000000Z" if values[0] < 0 else "2999-01-01T00:00:00.000000Z"
        conn.execute("UPDATE graphmem_memory SET expires_at = ? WHERE record_id = ?", (when, rid))
    elif op == "unlink":  # the memory's lifecycle links go: valid again
        conn.execute("DELETE FROM graphmem_link WHERE target_id = ?", (rid,))
    elif op == "link":  # a supersedes link makes one of them invalid (the link triggers)
        other = conn.execute(
            "SELECT record_id FROM graphmem_memory WHERE record_id <> ? ORDER BY 1 LIMIT 1", (rid,)
        ).fetchone()
        if other is not None:  # always from the lower id to the higher: one orientation
            source, target = sorted((other[0], rid))
            conn.execute(
                "INSERT OR IGNORE INTO graphmem_link (relation_id, source_id, target_id, "
                "relation_type, opposite_relation_type, created_at) VALUES (?, ?, ?, "
                "'supersedes', 'is_superseded_by', '2024-01-01T00:00:00.000000Z')",
                (f"{source}>{target}", source, target),
            )


# the two-stage scoring of the copy ranks as the exact float64 scoring does -----------


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.lists(st.integers(-3, 3), min_size=DIM, max_size=DIM), max_size=40),
    query=st.lists(st.integers(-3, 3), min_size=DIM, max_size=DIM),
    k=st.integers(1, 12),
    scale=st.sampled_from([1.0, 1e-3, 0.1]),
    bulk=st.booleans(),
)
def test_cache_ranks_as_exact_scoring(
    rows: list[list[int]], query: list[int], k: int, scale: float, bulk: bool
) -> None:
    cache = VectorCache()
    cache.reset(0, 3)
    ids = [f"r{i:02d}" for i in range(len(rows))]
    matrix = np.asarray(rows, dtype=np.float32).reshape(-1, DIM) * np.float32(scale)
    new = [
        (i, v.tobytes(), "memory", "valid", "u", None, None, None, n)
        for n, (i, v) in enumerate(zip(ids, matrix, strict=True))
    ]
    if bulk:  # a fresh load, whole arrays at a time (grows past the 3 expected rows)
        cache.load(new)
    else:
        cache.put_many(new)
    filters = SearchFilters(user_id="u").binds()
    assert sorted(cache.ids_of(cache.select(filters, False))) == ids
    q = np.asarray(query, dtype=np.float32) * np.float32(scale)
    expected = top_k(ids, cosine_distances(matrix, q), k) if ids else []
    assert cache.nearest(cache.slots_of(ids), q, k) == expected


def test_v3_file_upgraded_then_searched_and_kept_exact(tmp_path: Path) -> None:
    """A file made at schema version 3 gains the vector log on open; a DBA's write
    after the upgrade is seen by the cached handle."""
    path = tmp_path / "v3.db"
    conn = sqlite3.connect(path)
    conn.executescript((Path(__file__).parents[1] / "data" / "sqlite_install_v3.sql").read_text())
    for record_id, vector in (("a", (1, 0, 0, 0)), ("b", (0, 1, 0, 0))):
        conn.execute(
            "INSERT INTO graphmem_memory (record_id, record_type, content, user_id, created_at, "
            "embedding) VALUES (?, 'memory', 'old', 'u', '2024-01-01T00:00:00.000000Z', ?)",
            (record_id, _blob(*vector)),
        )
    conn.commit()
    with _open(path) as reader:
        assert _ids(reader, "0 1 0 0") == ["b", "a"]
        with conn:
            conn.execute(
                "UPDATE graphmem_memory SET embedding = ? WHERE record_id = 'a'",
                (_blob(0, 1, 0, 0),),
            )
        assert _ids(reader, "0 1 0 0") == ["a", "b"]  # equal distance: by id
        assert _ids(reader, "0 1 0 0") == _file_answer(path, "0 1 0 0")
    version = conn.execute(
        "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    ).fetchone()
    conn.close()
    assert version == (SCHEMA_VERSION,)


# the keyword doc ids of a selection, as a byte map or a JSON array --------------------


def _cache_with_docs(docs: list[int | None]) -> VectorCache:
    cache = VectorCache()
    cache.reset(0, len(docs))
    cache.load(
        [
            (f"m{i}", _blob(1, 0, 0, 0), "memory", "valid", "u", None, None, None, doc)
            for i, doc in enumerate(docs)
        ]
    )
    return cache


def test_doc_map_marks_exactly_the_selected_doc_ids() -> None:
    cache = _cache_with_docs([7, 3, None, 12, 9])
    everyone = cache.slots_of(["m0", "m1", "m2", "m3", "m4"])
    lo, hi, found = cache.doc_map(everyone)  # type: ignore[misc]
    assert (lo, hi) == (3, 12)
    assert [lo + i for i, byte in enumerate(found) if byte] == [3, 7, 9, 12]
    assert set(found) == {0, 1} and len(found) == hi - lo + 1
    assert cache.doc_map(cache.slots_of(["m2"])) == (1, 0, b"")  # no doc id: nothing
    assert cache.doc_map(cache.slots_of(["m4"])) == (9, 9, b"\x01")


def test_doc_map_gives_way_to_the_json_array_when_sparse(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = _cache_with_docs([5, 5 + 10_000])
    slots = cache.slots_of(["m0", "m1"])
    assert cache.doc_map(slots) is not None  # 10,001 bytes: under MAP_MIN_BYTES
    monkeypatch.setattr(vector_cache, "MAP_MIN_BYTES", 10_000)
    assert cache.doc_map(slots) is None  # more than 64 bytes per id and than the minimum
    assert cache.doc_ids_of(slots) == "[5, 10005]"
    monkeypatch.setattr(vector_cache, "MAP_BYTES_PER_DOC", 5_001)
    assert cache.doc_map(slots) is not None
