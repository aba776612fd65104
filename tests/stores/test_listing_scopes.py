"""Each scope filter of the listings holds in every branch of their statements
(one branch per way in since schema version 12): with a thread or a user given,
an agent filter still leaves out the other agents' rows."""

from __future__ import annotations

from pathlib import Path

from graphmem import GraphMemory, HashingEmbedder
from graphmem.testing.model import ManualClock


def test_memories_of_a_thread_listed_by_agent_leave_out_other_agents(tmp_path: Path) -> None:
    with GraphMemory(tmp_path / "m.db", embedder=HashingEmbedder(dim=8)) as memory:
        for record_id, agent_id in (("a1", "a"), ("a2", "a"), ("b1", "b"), ("n1", None)):
            memory.add_memory(
                f"note {record_id}", memory_id=record_id, agent_id=agent_id, thread_id="t"
            )
        memory.add_memory("elsewhere", memory_id="a3", agent_id="a", thread_id="other")
        listed = memory.list_memories(thread_id="t", agent_id="a")
        assert sorted(r.id for r in listed) == ["a1", "a2"]
        assert sorted(r.id for r in memory.list_memories(thread_id="t")) == [
            "a1",
            "a2",
            "b1",
            "n1",
        ]


def test_threads_of_a_user_listed_by_agent_leave_out_other_agents(tmp_path: Path) -> None:
    with GraphMemory(tmp_path / "t.db", embedder=HashingEmbedder(dim=8)) as memory:
        memory.create_thread("ua1", user_id="u", agent_id="a")
        memory.create_thread("ua2", user_id="u", agent_id="a")
        memory.create_thread("ub", user_id="u", agent_id="b")
        memory.create_thread("va", user_id="v", agent_id="a")
        listed = memory.list_threads(user_id="u", agent_id="a")
        assert [t.thread_id for t in listed] == ["ua1", "ua2"]
        assert memory.count_threads(user_id="u", agent_id="a") == 2
        assert sorted(t.thread_id for t in memory.list_threads(user_id="u")) == [
            "ua1",
            "ua2",
            "ub",
        ]


def test_memories_listed_by_agent_alone_leave_out_expired_ones(tmp_path: Path) -> None:
    """The agent-only branch of list-memories honours expiry like the others."""
    clock = ManualClock()
    with GraphMemory(tmp_path / "e.db", embedder=HashingEmbedder(dim=8), clock=clock) as memory:
        memory.add_memory("lasting", memory_id="keep", agent_id="a")
        memory.add_memory("brief", memory_id="gone", agent_id="a", ttl_days=1)
        memory.add_memory("other agent", memory_id="b1", agent_id="b", ttl_days=1)
        assert sorted(r.id for r in memory.list_memories(agent_id="a")) == ["gone", "keep"]
        clock.advance(days=2)
        assert [r.id for r in memory.list_memories(agent_id="a")] == ["keep"]
        every = memory.list_memories(agent_id="a", include_expired=True)
        assert sorted(r.id for r in every) == ["gone", "keep"]
