"""Paginated lists over HTTP report ``count`` (this page) and ``total`` (in all): users,
sessions (of one user or all) and a memory's links; the links of an unknown memory
are a 404, as the memory itself."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from .inproc import Service


@pytest.fixture
def svc() -> Iterator[Service]:
    service = Service()
    for user_id in ("u1", "u2", "u3"):
        assert service.call("POST", "/v1/users", json={"user_id": user_id}).status_code == 201
    for session_id, user_id in (("s1", "u1"), ("s2", "u1"), ("s3", "u1"), ("s4", "u2")):
        body = {"user_id": user_id, "session_id": session_id}
        assert service.call("POST", "/v1/sessions", json=body).status_code == 201
    yield service
    service.close()


def _page(svc: Service, path: str, key: str | None = None, **params: Any) -> dict[str, Any]:
    answer = svc.call("GET", path, key, params=params)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _pages(svc: Service, path: str, field: str, id_key: str, limit: int, **params: Any) -> Any:
    """Every page of ``limit`` up to the first empty one: each page's ids, count and total."""
    seen = []
    offset = 0
    while True:
        page = _page(svc, path, limit=limit, offset=offset, **params)
        ids = [item[id_key] for item in page[field]]
        assert (page["count"], page["limit"], page["offset"]) == (len(ids), limit, offset)
        seen.append((ids, page["count"], page["total"]))
        if not ids:
            return seen
        offset += limit


def test_users_pages_count_this_page_and_total_all(svc: Service) -> None:
    assert _pages(svc, "/v1/users", "users", "user_id", 2) == [
        (["u1", "u2"], 2, 3),
        (["u3"], 1, 3),
        ([], 0, 3),
    ]
    whole = _page(svc, "/v1/users", svc.read_key)
    assert (whole["count"], whole["total"]) == (3, 3)
    assert svc.call("DELETE", "/v1/users/u3").status_code == 200
    assert _page(svc, "/v1/users", limit=1)["total"] == 2


def test_sessions_pages_count_and_total_with_and_without_a_user(svc: Service) -> None:
    assert _pages(svc, "/v1/sessions", "sessions", "session_id", 3) == [
        (["s1", "s2", "s3"], 3, 4),
        (["s4"], 1, 4),
        ([], 0, 4),
    ]
    assert _pages(svc, "/v1/sessions", "sessions", "session_id", 2, user_id="u1") == [
        (["s1", "s2"], 2, 3),
        (["s3"], 1, 3),
        ([], 0, 3),
    ]
    only = _page(svc, "/v1/sessions", user_id="u2")
    assert (only["count"], only["total"]) == (1, 1)
    none = _page(svc, "/v1/sessions", user_id="u3")
    assert (none["sessions"], none["count"], none["total"]) == ([], 0, 0)
    unknown = _page(svc, "/v1/sessions", user_id="nobody")
    assert (unknown["count"], unknown["total"]) == (0, 0)
    assert svc.call("DELETE", "/v1/sessions/s2").status_code == 200
    assert _page(svc, "/v1/sessions", user_id="u1", limit=1)["total"] == 2


def _link(svc: Service, source: str, target: str, relation_type: str) -> str:
    body = {"source_id": source, "source_type": "memory", "target_id": target,
            "target_type": "memory", "relation_type": relation_type}  # fmt: skip
    answer = svc.call("POST", "/v1/links", json=body)
    assert answer.status_code == 201, answer.text
    relation_id: str = answer.json()["relation_id"]
    return relation_id


def test_links_pages_count_and_total_for_either_end(svc: Service) -> None:
    for memory_id in ("a", "b", "c", "d", "lone"):
        body = {"content": f"Note {memory_id}.", "memory_id": memory_id, "user_id": "u1"}
        assert svc.call("POST", "/v1/memories", json=body).status_code == 201
    made = [
        _link(svc, "a", "b", "supports"),
        _link(svc, "c", "a", "refines"),
        _link(svc, "a", "d", "contradicts"),
        _link(svc, "b", "c", "supports"),
    ]
    pages = _pages(svc, "/v1/memories/a/links", "links", "id", 2)
    assert [(count, total) for _, count, total in pages] == [(2, 3), (1, 3), (0, 3)]
    assert sorted(i for ids, _, _ in pages for i in ids) == sorted(made[:3])
    b = _page(svc, "/v1/memories/b/links", svc.read_key)
    assert (b["count"], b["total"]) == (2, 2)
    lone = _page(svc, "/v1/memories/lone/links")
    assert (lone["links"], lone["count"], lone["total"]) == ([], 0, 0)
    assert svc.call("DELETE", f"/v1/links/{made[0]}").status_code == 200
    after = _page(svc, "/v1/memories/a/links", limit=1)
    assert (after["count"], after["total"]) == (1, 2)


def test_links_of_an_unknown_memory_are_not_found(svc: Service) -> None:
    for path in ("/v1/memories/ghost", "/v1/memories/ghost/links"):
        answer = svc.call("GET", path, svc.read_key)
        body = answer.json()
        assert (answer.status_code, body["code"], body["status"]) == (404, "NOT_FOUND", 404)
        assert body["message"].startswith("memory_id:") and "ghost" in body["message"]


def test_links_of_a_deleted_memory_are_not_found(svc: Service) -> None:
    for memory_id in ("a", "b"):
        body = {"content": f"Note {memory_id}.", "memory_id": memory_id, "user_id": "u1"}
        assert svc.call("POST", "/v1/memories", json=body).status_code == 201
    _link(svc, "a", "b", "supports")
    svc.memory.delete_memory("a")
    assert svc.call("GET", "/v1/memories/a/links").status_code == 404
    left = _page(svc, "/v1/memories/b/links")
    assert (left["count"], left["total"]) == (0, 0)


def test_a_bad_page_is_invalid_argument(svc: Service) -> None:
    body = {"content": "Note a.", "memory_id": "a", "user_id": "u1"}
    assert svc.call("POST", "/v1/memories", json=body).status_code == 201
    for path in ("/v1/users", "/v1/sessions", "/v1/memories/a/links"):
        cases = (({"limit": 0}, "limit"), ({"offset": -1}, "offset"), ({"limit": "x"}, "limit"))
        for params, argument in cases:
            answer = svc.call("GET", path, params=params)
            assert (answer.status_code, answer.json()["code"]) == (400, "INVALID_ARGUMENT")
            assert answer.json()["message"].startswith(f"{argument}: "), (path, answer.text)


def test_a_page_and_its_total_are_read_in_one_transaction(
    svc: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list and the count of each route share one outermost read transaction, so
    no write can fall between them."""
    store = svc.memory._store
    opened, depth, outer = store.transaction, [0], [0]
    seen: list[tuple[str, int]] = []

    @contextmanager
    def transaction(write: bool = True) -> Iterator[None]:
        if depth[0] == 0:
            outer[0] += 1
        depth[0] += 1
        try:
            with opened(write):
                yield
        finally:
            depth[0] -= 1

    def spy(name: str) -> None:
        method = getattr(store, name)

        def called(*args: Any) -> Any:
            seen.append((name, outer[0]))
            return method(*args)

        monkeypatch.setattr(store, name, called)

    monkeypatch.setattr(store, "transaction", transaction)
    for name in ("list_profiles", "count_profiles", "list_threads", "count_threads"):
        spy(name)
    for name in ("list_links", "count_links", "get_memories"):
        spy(name)
    body = {"content": "Note a.", "memory_id": "a", "user_id": "u1"}
    assert svc.call("POST", "/v1/memories", json=body).status_code == 201
    for path in ("/v1/users", "/v1/sessions", "/v1/memories/a/links"):
        seen.clear()
        assert svc.call("GET", path, params={"limit": 1}).status_code == 200
        reads = {name for name, _ in seen}
        assert len(reads) >= 2 and len({n for _, n in seen}) == 1, (path, seen)
