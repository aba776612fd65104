"""The suite every :class:`~graphmem.stores.base.Store` must pass, driving the store itself.

:class:`~graphmem.testing.conformance.StoreConformance` checks a backend through
:class:`graphmem.GraphMemory`; this suite calls the store protocol directly, as a
new backend's author first needs. Subclass it in a test module with a ``Test``
prefix and override :meth:`StoreTests.make_store`::

    class TestMyStore(StoreTests):
        def make_store(self):
            return MyStore()
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from graphmem.core.relations import BUILTIN_OPPOSITES
from graphmem.core.validation import SearchFilters
from graphmem.errors import ConflictError, InvalidArgumentError
from graphmem.stores.base import NewLink, NewMemory, Store
from graphmem.testing.model import ManualClock, ModelFilters, ModelLink, ModelMemory, ReferenceModel
from graphmem.thread_models import Profile, ThreadInfo

__all__ = ["StoreTests"]

T0 = ManualClock.START


def new_memory(record_id: str, vector: Any = (1.0, 0.0), **fields: Any) -> NewMemory:
    """A memory created at ``T0`` (override any field by name)."""
    values: dict[str, Any] = {
        "record_id": record_id,
        "record_type": "fact",
        "content": f"Note {record_id}.",
        "user_id": None,
        "agent_id": None,
        "thread_id": None,
        "metadata": {},
        "timestamp": None,
        "created_at": T0,
        "expires_at": None,
        "embedding": np.asarray(vector, dtype=np.float32),
    }
    values.update(fields)
    return NewMemory(**values)


def new_link(
    relation_id: str, source: str, target: str, relation_type: str = "supports", **fields: Any
) -> NewLink:
    """A link created at ``T0`` with the built-in opposite of its type."""
    values: dict[str, Any] = {
        "relation_id": relation_id,
        "source_id": source,
        "target_id": target,
        "relation_type": relation_type,
        "opposite_relation_type": BUILTIN_OPPOSITES.get(relation_type, "is_" + relation_type),
        "timestamp": None,
        "metadata": {},
        "created_at": T0,
    }
    values.update(fields)
    return NewLink(**values)


class StoreTests:
    """Store protocol behaviour: records, links, validity, nearest, expand, transactions."""

    _stores: list[Store]

    def make_store(self) -> Store:
        """A fresh, empty store; subclasses override for their backend."""
        raise NotImplementedError

    def store(self) -> Store:
        """A new store from :meth:`make_store`, closed by ``teardown_method``."""
        store = self.make_store()
        self.__dict__.setdefault("_stores", []).append(store)
        return store

    def teardown_method(self, method: object = None) -> None:
        for store in self.__dict__.pop("_stores", []):
            store.close()

    @staticmethod
    def expect_conflict(store: Store, call: Any) -> None:
        try:
            call()
        except ConflictError:
            return
        raise AssertionError("expected ConflictError, nothing was raised")

    # memories -------------------------------------------------------------------

    def test_store_memory_roundtrip(self) -> None:
        store = self.store()
        store.insert_memory(
            new_memory("m1", user_id="u", metadata={"k": [1]}, timestamp=T0 - timedelta(days=1))
        )
        got = store.get_memories(["m1", "absent"])
        assert list(got) == ["m1"]
        record = got["m1"]
        assert (record.record_type, record.content, record.status, record.user_id) == (
            "fact",
            "Note m1.",
            "valid",
            "u",
        )
        assert record.metadata == {"k": [1]} and record.timestamp == T0 - timedelta(days=1)
        assert store.get_record_types(["m1", "absent"]) == {"m1": "fact"}

    def test_store_duplicate_memory_rolls_back_the_batch(self) -> None:
        store = self.store()
        store.insert_memory(new_memory("m1"))
        self.expect_conflict(
            store, lambda: store.insert_memories([new_memory("m2"), new_memory("m1")])
        )
        assert list(store.get_memories(["m1", "m2"])) == ["m1"]

    def test_store_transaction_rolls_back_on_error(self) -> None:
        store = self.store()
        try:
            with store.transaction():
                store.insert_memory(new_memory("m1"))
                raise RuntimeError("abort")
        except RuntimeError:
            pass
        assert store.get_memories(["m1"]) == {}

    def test_store_list_memories_oldest_first_with_limit(self) -> None:
        store = self.store()
        for i, record_id in enumerate(("c", "a", "b")):
            store.insert_memory(new_memory(record_id, created_at=T0 + timedelta(seconds=i)))
        listed = store.list_memories(SearchFilters(now=T0), include_invalid=True, limit=2)
        assert [m.id for m in listed] == ["c", "a"]

    def test_store_update_memory_keeps_embedding_when_none(self) -> None:
        store = self.store()
        store.insert_memories([new_memory("x", (1.0, 0.0)), new_memory("y", (0.0, 1.0))])
        store.update_memory("x", "New text.", {"k": 2}, None, None)
        assert store.get_memories(["x"])["x"].content == "New text."
        hits = store.nearest(SearchFilters(now=T0), np.array([1.0, 0.0], np.float32), 1, False)
        assert [h[0] for h in hits] == ["x"]

    # links and validity -----------------------------------------------------------

    def test_store_lifecycle_link_invalidates_target_until_deleted(self) -> None:
        store = self.store()
        store.insert_memories([new_memory("new"), new_memory("old")])
        store.insert_link(new_link("l1", "new", "old", "supersedes"))
        old = store.get_memories(["old"])["old"]
        assert old.status == "invalid" and [r.id for r in old.invalidated_by] == ["l1"]
        store.update_link("l1", "supports", "is_supported_by", None, {})
        assert store.get_memories(["old"])["old"].status == "valid"
        store.update_link("l1", "supersedes", "is_superseded_by", None, {})
        assert store.delete_link("l1") and not store.delete_link("l1")
        assert store.get_memories(["old"])["old"].status == "valid"

    def test_store_delete_memory_takes_its_links(self) -> None:
        store = self.store()
        store.insert_memories([new_memory("new"), new_memory("old")])
        store.insert_link(new_link("l1", "new", "old", "supersedes"))
        assert store.delete_memory("new") and not store.delete_memory("new")
        assert (
            store.get_links(["l1"]) == {} and store.get_memories(["old"])["old"].status == "valid"
        )

    def test_store_link_conflicts(self) -> None:
        store = self.store()
        store.insert_memories([new_memory("a"), new_memory("b")])
        store.insert_link(new_link("l1", "a", "b"))
        self.expect_conflict(store, lambda: store.insert_link(new_link("l1", "b", "a", "refines")))
        self.expect_conflict(store, lambda: store.insert_link(new_link("l2", "b", "a")))
        self.expect_conflict(
            store,
            lambda: store.insert_links(
                [new_link("l3", "a", "b", "refines"), new_link("l4", "a", "b")]
            ),
        )
        assert list(store.get_links(["l1", "l2", "l3", "l4"])) == ["l1"]
        assert store.find_link_conflict("b", "a", "supports", "") == "l1"
        assert store.find_link_conflict("b", "a", "supports", "l1") is None
        assert (
            store.find_link("a", "b", "supports") == "l1"
            and store.find_link("b", "a", "supports") is None
        )

    def test_store_list_links_oldest_first(self) -> None:
        store = self.store()
        store.insert_memories([new_memory(i) for i in "abc"])
        store.insert_links(
            [
                new_link("l2", "a", "b", created_at=T0),
                new_link("l1", "b", "c", created_at=T0 + timedelta(seconds=1)),
                new_link("l0", "a", "c", "refines", created_at=T0),
            ]
        )
        assert [r.id for r in store.list_links(None, None)] == ["l0", "l2", "l1"]
        assert [r.id for r in store.list_links("c", None)] == ["l0", "l1"]
        assert [r.id for r in store.list_links(None, "supports")] == ["l2", "l1"]

    def test_store_count_links_matches_list_links(self) -> None:
        store = self.store()
        store.insert_memories([new_memory(i) for i in "abcd"])
        store.insert_links(
            [
                new_link("l2", "a", "b"),
                new_link("l1", "b", "c"),
                new_link("l0", "a", "c", "refines"),
                new_link("l3", "d", "a", "supersedes"),
            ]
        )
        for record_id in (None, "a", "b", "c", "d", "missing"):
            for relation_type in (None, "supports", "refines", "other"):
                listed = store.list_links(record_id, relation_type)
                counted = store.count_links(record_id, relation_type)
                assert counted == len(listed), (record_id, relation_type)
        assert store.count_links("a", None) == 3 and store.count_links(None, None) == 4
        store.delete_memory("a")  # its links go with it
        assert (store.count_links("a", None), store.count_links(None, None)) == (0, 1)

    # threads and profiles ---------------------------------------------------------

    def test_store_count_threads_and_profiles_match_the_lists(self) -> None:
        store = self.store()
        scopes = [("t1", "u1", "g1"), ("t2", "u1", None), ("t3", "u2", "g1"), ("t4", None, None)]
        for thread_id, user_id, agent_id in scopes:
            store.insert_thread(
                ThreadInfo(
                    thread_id=thread_id, user_id=user_id, agent_id=agent_id,
                    created_at=T0, updated_at=T0,
                )
            )  # fmt: skip
        for user_id in (None, "u1", "u2", "nobody"):
            for agent_id in (None, "g1"):
                listed = store.list_threads(user_id, agent_id, 100, 0)
                assert store.count_threads(user_id, agent_id) == len(listed)
        assert store.count_threads("u1", None) == 2 and store.count_threads(None, None) == 4
        assert len(store.list_threads("u1", None, 1, 1)) == 1  # a page, not the total
        for kind, profile_id in (("user", "u1"), ("user", "u2"), ("agent", "g1")):
            store.insert_profile(Profile(kind=kind, id=profile_id, created_at=T0))
        assert (store.count_profiles("user"), store.count_profiles("agent")) == (2, 1)
        assert len(store.list_profiles("user", 1, 1)) == 1
        store.delete_profile("user", "u1")
        store.delete_scope("t1", None, None)
        assert (store.count_profiles("user"), store.count_threads("u1", None)) == (1, 1)

    # nearest ------------------------------------------------------------------------

    def test_store_nearest_by_distance_then_id(self) -> None:
        store = self.store()
        store.insert_memories(
            [
                new_memory("b", (1.0, 1.0)),
                new_memory("a", (2.0, 2.0)),
                new_memory("c", (1.0, 0.0)),
                new_memory("d", (0.0, 1.0), user_id="u"),
            ]
        )
        query = np.array([1.0, 1.0], np.float32)
        hits = store.nearest(SearchFilters(now=T0), query, 3, False)
        assert [h[0] for h in hits] == ["a", "b", "c"]
        assert hits[0][1] == hits[1][1] == 0.0
        assert [
            h[0] for h in store.nearest(SearchFilters(now=T0, user_id="u"), query, 3, False)
        ] == ["d"]
        assert store.nearest(SearchFilters(now=T0), query, 0, False) == []

    def test_store_nearest_without_user_or_agent_keeps_only_records_without_one(self) -> None:
        store = self.store()
        owners = {"ua": ("u", "a"), "u-": ("u", None), "-a": (None, "a"), "--": (None, None)}
        owners["va"] = ("v", "a")
        store.insert_memories(
            [
                new_memory(rid, user_id=user, agent_id=agent, metadata={"k": 1})
                for rid, (user, agent) in owners.items()
            ]
        )
        query = np.array([1.0, 0.0], np.float32)

        def near(**fields: Any) -> list[str]:
            filters = SearchFilters(now=T0, **fields)
            return sorted(h[0] for h in store.nearest(filters, query, 10, False))

        assert near(without_user=True, without_agent=True) == ["--"]
        assert near(without_user=True, agent_id="a") == ["-a"]
        assert near(user_id="u", without_agent=True) == ["u-"]
        assert near(without_user=True) == ["--", "-a"]
        assert near(without_agent=True) == ["--", "u-"]
        assert near(without_user=True, without_agent=True, metadata_filter={"k": 1}) == ["--"]
        # a user or agent given is matched as it is
        assert near(user_id="u", without_user=True) == ["u-", "ua"]
        assert near() == sorted(owners)

    def test_store_nearest_leaves_invalid_out_unless_asked(self) -> None:
        store = self.store()
        store.insert_memories([new_memory("new", (0.0, 1.0)), new_memory("old", (1.0, 0.0))])
        store.insert_link(new_link("l1", "new", "old", "supersedes"))
        query = np.array([1.0, 0.0], np.float32)
        assert [h[0] for h in store.nearest(SearchFilters(now=T0), query, 5, False)] == ["new"]
        assert [h[0] for h in store.nearest(SearchFilters(now=T0), query, 5, True)] == [
            "old",
            "new",
        ]

    def test_store_nearest_other_dimension_is_invalid_argument(self) -> None:
        store = self.store()
        store.insert_memory(new_memory("a"))
        try:
            store.nearest(SearchFilters(now=T0), np.ones(3, np.float32), 1, False)
        except InvalidArgumentError as exc:
            assert exc.argument == "embedder"
        else:
            raise AssertionError("expected InvalidArgumentError")

    # expand -------------------------------------------------------------------------

    def test_store_expand_matches_the_model(self) -> None:
        store, model = self.store(), ReferenceModel()
        ids = ["a", "b", "c", "d", "e"]
        for record_id in ids:
            store.insert_memory(new_memory(record_id, user_id="x" if record_id == "e" else None))
            model.add_memory(
                ModelMemory(record_id, "fact", "", user_id="x" if record_id == "e" else None)
            )
        edges = [
            ("l1", "a", "b", 2),
            ("l2", "a", "c", 1),
            ("l3", "b", "d", 0),
            ("l4", "c", "d", 0),
            ("l5", "d", "e", 0),
        ]
        for relation_id, source, target, seconds in edges:
            created = T0 + timedelta(seconds=seconds)
            store.insert_link(new_link(relation_id, source, target, created_at=created))
            model.add_link(
                ModelLink(relation_id, source, target, "supports", "is_supported_by", created)
            )
        for hops, cap in ((1, None), (3, None), (3, 2), (2, 0), (0, None)):
            got = [
                (n.root_id, n.entry.node, n.entry.parent, n.entry.depth, n.relation.id)
                for n in store.expand(["a", "d"], SearchFilters(now=T0), hops, cap)
            ]
            want = [
                (root, e.node, e.parent, e.depth, e.relation_id)
                for root in ("a", "d")
                for e in model.tree(root, ModelFilters(now=T0), hops, cap)
            ]
            assert got == want, (hops, cap)

    def test_store_expand_respects_filters(self) -> None:
        store = self.store()
        store.insert_memories([new_memory("a"), new_memory("b", user_id="other"), new_memory("c")])
        store.insert_links([new_link("l1", "a", "b"), new_link("l2", "b", "c")])
        nodes = list(store.expand(["a"], SearchFilters(now=T0), 2, None))
        assert [n.entry.node for n in nodes] == ["b", "c"]
        assert (
            list(
                store.expand(
                    ["a"], SearchFilters(now=T0, user_id=None, record_types=("memory",)), 2, None
                )
            )
            == []
        )
        assert list(store.expand([], SearchFilters(now=T0), 2, None)) == []
