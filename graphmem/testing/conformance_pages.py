"""Conformance tests for paging through memories and links (with the counts of users,
threads and links, and the store's stats), and listing expired memories."""

from __future__ import annotations

import itertools
import random
from collections import Counter

from graphmem.errors import InvalidArgumentError
from graphmem.testing.conformance_base import ConformanceBase
from graphmem.testing.model import ManualClock

__all__ = ["PageConformance"]


class PageConformance(ConformanceBase):
    """``limit`` / ``offset`` on ``list_memories`` and ``list_record_links``, and the
    counts of what the lists page through."""

    def test_pages_of_memories_cover_the_list_once_in_order(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        for record_id in ("e", "b", "g", "a", "f", "c", "d"):
            memory.add_memory(f"Note {record_id}.", memory_id=record_id)
            if record_id in ("g", "c"):
                clock.advance(seconds=1)  # ties on created_at are ordered by id
        whole = [m.id for m in memory.list_memories()]
        assert whole == ["b", "e", "g", "a", "c", "f", "d"]
        pages = [
            [m.id for m in memory.list_memories(limit=3, offset=offset)] for offset in (0, 3, 6, 9)
        ]
        assert pages == [whole[0:3], whole[3:6], whole[6:], []]

    def test_pages_of_links_cover_the_list_once_in_order(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        for record_id in "abcd":
            memory.add_memory(f"Note {record_id}.", memory_id=record_id, memory_type="fact")
        for relation_id, source, target in (("l3", "a", "b"), ("l1", "b", "c"), ("l2", "c", "d")):
            memory.link_records(source, "fact", target, "fact", "supports", relation_id=relation_id)
        clock.advance(seconds=1)
        memory.link_records("a", "fact", "d", "fact", "supports", relation_id="l0")
        whole = [r.id for r in memory.list_record_links()]
        assert whole == ["l1", "l2", "l3", "l0"]
        assert [r.id for r in memory.list_record_links(limit=2)] == whole[:2]
        assert [r.id for r in memory.list_record_links(limit=2, offset=2)] == whole[2:]
        assert [r.id for r in memory.list_record_links(offset=3)] == whole[3:]
        assert [r.id for r in memory.list_record_links("a", limit=1, offset=1)] == ["l0"]
        assert memory.count_record_links() == 4
        assert memory.count_record_links("a") == 2
        assert memory.count_record_links("a", "supports") == 2
        assert memory.count_record_links(relation_type="refines") == 0

    def test_counts_are_the_totals_the_pages_go_through(self) -> None:
        memory = self.fresh()
        for user_id in ("u1", "u2", "u3"):
            memory.add_user(user_id)
        memory.add_agent("g")
        for thread_id, owner in (("t1", "u1"), ("t2", "u1"), ("t3", "u2"), ("t4", None)):
            memory.create_thread(thread_id, user_id=owner, agent_id="g" if owner else None)
        assert memory.count_users() == 3 == len(memory.list_users())
        assert len(memory.list_users(limit=2, offset=2)) == 1
        assert memory.count_threads() == 4
        assert memory.count_threads(user_id="u1") == 2 == len(memory.list_threads(user_id="u1"))
        assert memory.count_threads(agent_id="g") == 3
        assert memory.count_threads(user_id="u3") == 0
        memory.delete_user("u1")  # with its threads
        assert (memory.count_users(), memory.count_threads()) == (2, 2)

    def test_pages_bad_limit_or_offset_is_invalid_argument(self) -> None:
        memory = self.fresh()
        memory.add_memory("Note.", memory_id="a")
        for call in (
            lambda: memory.list_memories(offset=-1),
            lambda: memory.list_memories(limit=0),
            lambda: memory.list_record_links(limit=0),
            lambda: memory.list_record_links(offset=-1),
            lambda: memory.count_record_links(""),
            lambda: memory.count_threads(user_id=""),
        ):
            self.expect_error(memory, InvalidArgumentError, call)

    def test_list_memories_include_expired(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        memory.add_memory("Short.", memory_id="short", ttl_days=1)
        memory.add_memory("Long.", memory_id="long")
        clock.advance(days=2)
        assert [m.id for m in memory.list_memories()] == ["long"]
        assert [m.id for m in memory.list_memories(include_expired=True)] == ["long", "short"]

    def test_stats_count_what_the_lists_hold(self) -> None:
        # Types, statuses, users (and none), memories that expire with links to
        # them, and a thread's messages, which are not memories.
        clock = ManualClock()
        memory = self.fresh(clock)
        rng = random.Random(5)
        types = ("memory", "fact", "preference", "guideline")
        for i in range(24):
            memory.add_memory(
                f"Note {i}.",
                memory_id=f"m{i:02}",
                memory_type=types[i % 4],
                user_id=(None, "u1", "u2")[i % 3],
                ttl_days=1 if i % 5 == 0 else None,
            )
        kinds = ("supports", "contradicts", "supersedes", "refines", "duplicates")
        for a, b in rng.sample(list(itertools.combinations(range(24), 2)), 40):
            memory.link_records(
                f"m{a:02}", types[a % 4], f"m{b:02}", types[b % 4], rng.choice(kinds)
            )
        memory.create_thread("t1", user_id="u1").add_messages(
            [{"role": "user", "content": "Hello."}, {"role": "assistant", "content": "Hi."}]
        )
        clock.advance(days=2)
        records = memory.list_memories(limit=1000)
        ids = {r.id for r in records}
        all_links = memory.list_record_links()
        links = [x for x in all_links if {x.source_record_id, x.target_record_id} <= ids]
        assert len(links) < len(all_links) and "invalid" in {r.status for r in records}
        stats = memory.stats()
        assert (stats.memories, stats.links, stats.messages) == (len(records), len(links), 2)
        assert stats.by_type == dict(sorted(Counter(r.record_type for r in records).items()))
        assert stats.by_status == dict(sorted(Counter(r.status for r in records).items()))
        assert stats.by_user == dict(sorted(Counter(r.user_id or "" for r in records).items()))
        assert stats.links_by_type == dict(sorted(Counter(x.relation_type for x in links).items()))
