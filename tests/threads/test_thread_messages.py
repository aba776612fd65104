"""Messages: records of type message, ordered in their thread, never memories or link ends."""

from __future__ import annotations

from datetime import timedelta

import pytest

from graphmem import ConflictError, GraphMemory, InvalidArgumentError, NotFoundError
from graphmem.core.validation import MAX_CONTENT_LENGTH


def _chat(*texts: str) -> list[dict[str, str]]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(texts)
    ]


def test_messages_add_returns_ids_in_order_with_positions(memory: GraphMemory) -> None:
    thread = memory.create_thread("t", user_id="u", agent_id="a")
    first = thread.add_messages(_chat("hello", "hi there"))
    second = thread.add_messages([{"role": "tool", "content": "42"}], metadata={"k": 1})
    messages = thread.get_messages()
    assert [m.id for m in messages] == first + second
    assert [(m.position, m.role, m.content) for m in messages] == [
        (0, "user", "hello"),
        (1, "assistant", "hi there"),
        (2, "tool", "42"),
    ]
    assert messages[2].metadata == {"k": 1}
    assert {(m.thread_id, m.user_id, m.agent_id) for m in messages} == {("t", "u", "a")}


@pytest.mark.parametrize(
    ("start", "end"), [(None, None), (1, None), (-2, None), (0, -1), (3, 1), (-10, 10), (5, 9)]
)
def test_messages_get_slices_like_python(memory: GraphMemory, start: int, end: int) -> None:
    thread = memory.create_thread("t")
    thread.add_messages(_chat(*[f"m{i}" for i in range(6)]))
    expected = [f"m{i}" for i in range(6)][start:end]
    assert [m.content for m in thread.get_messages(start, end)] == expected


def test_messages_delete_keeps_order_and_positions(memory: GraphMemory) -> None:
    thread = memory.create_thread("t")
    ids = thread.add_messages(_chat("a", "b", "c"))
    thread.delete_message(ids[1])
    assert [(m.position, m.content) for m in thread.get_messages()] == [(0, "a"), (2, "c")]
    thread.add_messages(_chat("d"))
    assert [m.position for m in thread.get_messages()] == [0, 2, 3]
    with pytest.raises(NotFoundError):
        thread.get_message(ids[1])


def test_messages_update_content_and_metadata(memory: GraphMemory) -> None:
    thread = memory.create_thread("t")
    (mid,) = thread.add_messages(_chat("draft"))
    updated = thread.update_message(mid, content="final", metadata={"edited": True})
    assert (updated.content, updated.metadata, updated.position) == ("final", {"edited": True}, 0)
    assert thread.get_message(mid).content == "final"


def test_messages_are_not_memories(memory: GraphMemory) -> None:
    thread = memory.create_thread("t", user_id="u", agent_id="a")
    (mid,) = thread.add_messages(_chat("tea with lemon"))
    memory.add_memory("tea with milk", memory_id="m", user_id="u", agent_id="a")
    assert [m.id for m in memory.list_memories()] == ["m"]
    assert [r.id for r in memory.search("tea with lemon", max_results=10)] == ["m"]
    assert [r.id for r in thread.search("tea with lemon")] == ["m"]
    with pytest.raises(NotFoundError):
        memory.get_memory(mid)
    with pytest.raises(NotFoundError):
        memory.delete_memory(mid)
    assert thread.get_message(mid).content == "tea with lemon"


def test_messages_are_never_link_endpoints(memory: GraphMemory) -> None:
    thread = memory.create_thread("t")
    (mid,) = thread.add_messages(_chat("hello"))
    memory.add_memory("a memory", memory_id="m")
    with pytest.raises(InvalidArgumentError, match="record_type"):
        memory.link_records(mid, "message", "m", "memory", "supports")
    with pytest.raises(InvalidArgumentError, match="message"):
        memory.link_records(mid, "memory", "m", "memory", "supports")
    assert memory.list_record_links() == []


def test_messages_of_another_thread_are_not_found(memory: GraphMemory) -> None:
    one, two = memory.create_thread("one"), memory.create_thread("two")
    (mid,) = one.add_messages(_chat("secret"))
    with pytest.raises(NotFoundError, match="in this thread"):
        two.get_message(mid)
    with pytest.raises(NotFoundError):
        two.delete_message(mid)
    card = two.get_context_card(min_relevant_results_by_type={"message": 3})
    assert all(r.id != mid for r in card.relevant_records)


@pytest.mark.parametrize(
    ("messages", "named"),
    [
        ([{"content": "no role"}], r"messages\[0\].*'role'"),
        ([{"role": "user"}], r"messages\[0\].*'content'"),
        (
            [{"role": "user", "content": "ok"}, {"role": "robot", "content": "x"}],
            r"messages\[1\]\.role",
        ),
        ([{"role": "user", "content": 5}], r"messages\[0\]\.content"),
        ([{"role": "user", "content": "   "}], r"messages\[0\]\.content"),
        ([{"role": "user", "content": "x", "name": "bob"}], r"messages\[0\].*'name'"),
        ([{"role": "user", "content": "x" * (MAX_CONTENT_LENGTH + 1)}], r"messages\[0\]\.content"),
        (["hello"], r"messages\[0\]"),
        ([], "messages"),
        ("hello", "messages"),
        ({"role": "user", "content": "x"}, "messages"),
    ],
)
def test_messages_malformed_are_rejected_and_nothing_is_written(
    memory: GraphMemory, messages: object, named: str
) -> None:
    thread = memory.create_thread("t")
    thread.add_messages(_chat("before"))
    with pytest.raises(InvalidArgumentError, match=named):
        thread.add_messages(messages)  # type: ignore[arg-type]
    assert [m.content for m in thread.get_messages()] == ["before"]
    assert thread.info().message_count == 1


def test_messages_bad_slice_and_ttl_are_named(memory: GraphMemory) -> None:
    thread = memory.create_thread("t")
    with pytest.raises(InvalidArgumentError, match="start"):
        thread.get_messages("1")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="ttl_days"):
        thread.add_messages(_chat("x"), ttl_days=0)
    assert thread.get_messages() == []


def test_messages_expire_after_ttl(memory: GraphMemory) -> None:
    thread = memory.create_thread("t")
    thread.add_messages(_chat("short-lived"), ttl_days=1)
    thread.add_messages(_chat("kept"))
    assert [m.content for m in thread.get_messages()] == ["short-lived", "kept"]
    later = memory._clock() + timedelta(days=2)
    memory._clock = lambda: later
    assert [m.content for m in thread.get_messages()] == ["kept"]


def test_messages_are_not_replaced_by_an_upsert(memory: GraphMemory) -> None:
    thread = memory.create_thread("t")
    (mid,) = thread.add_messages(_chat("keep me"))
    with pytest.raises(ConflictError, match="message"):
        memory.add_memory("a memory", memory_id=mid, if_exists="replace")
    with pytest.raises(ConflictError):
        memory.add_memory("a memory", memory_id=mid)
    assert thread.get_message(mid).content == "keep me"
    assert memory.list_memories() == []
