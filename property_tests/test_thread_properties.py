"""Threads against a plain-Python reference: card selection, message slicing, thread deletion."""

from __future__ import annotations

from hypothesis import given, note
from hypothesis import strategies as st

from graphmem import GraphMemory, HashingEmbedder
from graphmem.core.record_types import MEMORY_TYPES
from graphmem.testing.memory_store import MemoryStore

WORDS = ["tea", "pizza", "dinner", "friday", "vegan", "concise", "garden", "train"]
LIFECYCLE = {"supersedes", "refines", "duplicates"}

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
records = st.lists(
    st.tuples(
        st.sampled_from(MEMORY_TYPES),
        st.sampled_from(["u", "v"]),
        st.sampled_from(["a", "b"]),
        texts,
    ),
    max_size=14,
)
thread_messages = st.lists(st.tuples(st.sampled_from(["t", "t2"]), texts), max_size=8)
minimums = st.dictionaries(
    st.sampled_from([*MEMORY_TYPES, "message"]), st.integers(1, 4), max_size=5
)


def _memory(backend: str) -> GraphMemory:
    connection: object = ":memory:" if backend == "sqlite" else MemoryStore()
    return GraphMemory(connection, embedder=HashingEmbedder(dim=16))


@given(
    backend=st.sampled_from(["sqlite", "memory"]),
    stored=records,
    messages=thread_messages,
    wanted=minimums,
    extra=st.none() | st.integers(0, 6),
    concurrency=st.integers(1, 5),
)
def test_card_selection_matches_the_rules(
    backend: str,
    stored: list[tuple[str, str, str, str]],
    messages: list[tuple[str, str]],
    wanted: dict[str, int],
    extra: int | None,
    concurrency: int,
) -> None:
    memory = _memory(backend)
    t = memory.create_thread("t", user_id="u", agent_id="a", enable_context_summary=False)
    t2 = memory.create_thread("t2", user_id="u", agent_id="a")
    for i, (kind, user, agent, text) in enumerate(stored):
        memory.add_memory(text, memory_id=f"r{i}", memory_type=kind, user_id=user, agent_id=agent)
    for thread_id, text in messages:
        (t if thread_id == "t" else t2).add_messages([{"role": "user", "content": text}])
    if not t.get_messages():
        t.add_messages([{"role": "user", "content": "tea"}])
    total = sum(wanted.values())
    cap = None if extra is None else total + extra
    card = memory.get_thread("t", context_card_type_search_concurrency=concurrency)
    chosen = card.get_context_card(max_relevant_results=cap, min_relevant_results_by_type=wanted)
    picked = chosen.relevant_records
    note(f"picked: {[(r.id, r.record_type) for r in picked]}")
    ids = [r.id for r in picked]
    assert len(ids) == len(set(ids))  # no record twice
    effective_cap = max(10, total) if cap is None else cap
    assert len(ids) <= effective_cap
    own_messages = {m.id for m in t.get_messages()}
    scoped = {
        f"r{i}" for i, (_, user, agent, _) in enumerate(stored) if (user, agent) == ("u", "a")
    }
    for r in picked:
        assert (r.id in own_messages) if r.record_type == "message" else (r.id in scoped)
    available = {
        kind: len([i for i in scoped if stored[int(i[1:])][0] == kind]) for kind in MEMORY_TYPES
    }
    available["message"] = len(own_messages)
    got = {kind: sum(r.record_type == kind for r in picked) for kind in available}
    for kind, count in wanted.items():
        assert got[kind] >= min(count, available[kind])  # minimums met when records exist
    # The requested types lead, in the caller's order.
    lead = [r.record_type for r in picked[: sum(min(c, available[k]) for k, c in wanted.items())]]
    assert lead == [k for k, c in wanted.items() for _ in range(min(c, available[k]))]
    by_minimum = sum(min(c, available[k]) for k, c in wanted.items())
    memory_like_taken = sum(min(c, available[k]) for k, c in wanted.items() if k != "message")
    if wanted:
        fill = len(scoped) - memory_like_taken
        assert len(ids) == min(effective_cap, by_minimum + fill)
    else:
        assert len(ids) == min(effective_cap, len(scoped) + len(own_messages))


ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(1, 3)),
        st.tuples(st.just("delete"), st.integers(0, 20)),
    ),
    max_size=10,
)
bounds = st.none() | st.integers(-12, 12)


@given(backend=st.sampled_from(["sqlite", "memory"]), steps=ops, start=bounds, end=bounds)
def test_messages_order_and_slicing_match_a_list(
    backend: str, steps: list[tuple[str, int]], start: int | None, end: int | None
) -> None:
    memory = _memory(backend)
    thread = memory.create_thread("t")
    model: list[tuple[str, str]] = []  # (id, content) in order
    counter = 0
    for op, n in steps:
        if op == "add":
            batch = [f"m{counter + i}" for i in range(n)]
            counter += n
            ids = thread.add_messages([{"role": "user", "content": c} for c in batch])
            model += list(zip(ids, batch, strict=True))
        elif model:
            victim = model.pop(n % len(model))
            thread.delete_message(victim[0])
    assert [(m.id, m.content) for m in thread.get_messages()] == model
    assert [(m.id, m.content) for m in thread.get_messages(start, end)] == model[start:end]
    positions = [m.position for m in thread.get_messages()]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)


links = st.lists(
    st.tuples(st.integers(0, 7), st.integers(0, 7), st.sampled_from(["supersedes", "supports"])),
    max_size=10,
)


@given(
    backend=st.sampled_from(["sqlite", "memory"]),
    in_thread=st.lists(st.booleans(), min_size=8, max_size=8),
    edges=links,
)
def test_thread_deletion_keeps_the_validity_invariant(
    backend: str, in_thread: list[bool], edges: list[tuple[int, int, str]]
) -> None:
    memory = _memory(backend)
    thread = memory.create_thread("t", user_id="u", agent_id="a")
    for i, scoped in enumerate(in_thread):
        if scoped:
            thread.add_memory(f"memory {i}", memory_id=f"r{i}")
        else:
            memory.add_memory(f"memory {i}", memory_id=f"r{i}", user_id="u", agent_id="a")
    stored: set[tuple[int, int, str]] = set()
    for s, t, kind in edges:
        if s == t or (s, t, kind) in stored or (t, s, kind) in stored:
            continue
        memory.link_records(f"r{s}", "memory", f"r{t}", "memory", kind)
        stored.add((s, t, kind))
    deleted = memory.delete_thread("t")
    assert deleted == sum(in_thread)
    kept = {f"r{i}" for i, scoped in enumerate(in_thread) if not scoped}
    remaining = memory.list_record_links()
    assert all({r.source_record_id, r.target_record_id} <= kept for r in remaining)
    assert len(remaining) == len([e for e in stored if {f"r{e[0]}", f"r{e[1]}"} <= kept])
    for record in memory.list_memories():
        targeted = any(
            r.target_record_id == record.id and r.relation_type in LIFECYCLE for r in remaining
        )
        assert record.status == ("invalid" if targeted else "valid")
