"""Filters at their edges (SPEC section 1): records without scope ids, expiry at the instant.

Each case is checked on direct results, on list_memories and on linked context,
where the record would otherwise be the only way to reach another one.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from graphmem import GraphMemory, SearchResult

SCOPE = {"user_id": "u", "agent_id": "a", "thread_id": "t"}


def _tree_ids(result: SearchResult) -> list[str]:
    out: list[str] = []
    for _, child in result.linked_results:
        out.append(child.id)
        out.extend(_tree_ids(child))
    return out


def _tree(store: GraphMemory, **filters: str) -> list[str]:
    """The 2-hop tree of ``root``, the only record whose content is 'zebra anchor root'."""
    results = store.search("zebra anchor root", max_results=1, num_hops=2, **filters)
    assert [r.id for r in results] == ["root"]
    return _tree_ids(results[0])


def _found(store: GraphMemory, query: str, **filters: str) -> list[str]:
    return [r.id for r in store.search(query, max_results=10, **filters)]


def _listed(store: GraphMemory, **filters: str) -> list[str]:
    return sorted(m.id for m in store.list_memories(**filters))


# a bridge with no scope ids ------------------------------------------------------


@pytest.fixture
def unscoped_bridge(clocked_memory: GraphMemory) -> GraphMemory:
    """root - bridge - leaf; root and leaf carry user, agent and thread, bridge none."""
    m = clocked_memory
    m.add_memory("zebra anchor root", memory_id="root", **SCOPE)
    m.add_memory("unscoped bridge", memory_id="bridge")
    m.add_memory("leaf", memory_id="leaf", **SCOPE)
    m.link_records("root", "memory", "bridge", "memory", "supports")
    m.link_records("bridge", "memory", "leaf", "memory", "supports")
    return m


def test_search_boundaries_unscoped_bridge_without_filter(unscoped_bridge: GraphMemory) -> None:
    assert _tree(unscoped_bridge) == ["bridge", "leaf"]
    assert "bridge" in _found(unscoped_bridge, "unscoped bridge")
    assert _listed(unscoped_bridge) == ["bridge", "leaf", "root"]


@pytest.mark.parametrize("scope", sorted(SCOPE))
def test_search_boundaries_unscoped_bridge_not_linked(
    unscoped_bridge: GraphMemory, scope: str
) -> None:
    assert _tree(unscoped_bridge, **{scope: SCOPE[scope]}) == []


@pytest.mark.parametrize("scope", sorted(SCOPE))
def test_search_boundaries_unscoped_record_not_found(
    unscoped_bridge: GraphMemory, scope: str
) -> None:
    assert "bridge" not in _found(unscoped_bridge, "unscoped bridge", **{scope: SCOPE[scope]})


@pytest.mark.parametrize("scope", sorted(SCOPE))
def test_search_boundaries_unscoped_record_not_listed(
    unscoped_bridge: GraphMemory, scope: str
) -> None:
    assert _listed(unscoped_bridge, **{scope: SCOPE[scope]}) == ["leaf", "root"]


# expiry at exactly expires_at ----------------------------------------------------


@pytest.fixture
def expiring_bridge(pinned_memory: GraphMemory) -> GraphMemory:
    """root - bridge - leaf, all created at the pinned instant; bridge lives one day."""
    m = pinned_memory
    m.add_memory("zebra anchor root", memory_id="root")
    m.add_memory("short lived bridge", memory_id="bridge", ttl_days=1)
    m.add_memory("leaf", memory_id="leaf")
    m.link_records("root", "memory", "bridge", "memory", "supports")
    m.link_records("bridge", "memory", "leaf", "memory", "supports")
    return m


def test_search_boundaries_alive_just_before_expiry(expiring_bridge: GraphMemory, pinned_clock):
    pinned_clock.now = expiring_bridge.get_memory("bridge").expires_at - timedelta(microseconds=1)
    assert _tree(expiring_bridge) == ["bridge", "leaf"]
    assert "bridge" in _found(expiring_bridge, "short lived bridge")
    assert _listed(expiring_bridge) == ["bridge", "leaf", "root"]


@pytest.fixture
def at_expiry(expiring_bridge: GraphMemory, pinned_clock) -> GraphMemory:
    """The clock stands exactly at the bridge's expires_at."""
    pinned_clock.now = expiring_bridge.get_memory("bridge").expires_at
    return expiring_bridge


def test_search_boundaries_expired_at_the_instant_not_linked(at_expiry: GraphMemory) -> None:
    assert _tree(at_expiry) == []


def test_search_boundaries_expired_at_the_instant_not_found(at_expiry: GraphMemory) -> None:
    assert "bridge" not in _found(at_expiry, "short lived bridge")


def test_search_boundaries_expired_at_the_instant_not_listed(at_expiry: GraphMemory) -> None:
    assert _listed(at_expiry) == ["leaf", "root"]
