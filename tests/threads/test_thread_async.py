"""Async twins of the thread handle's methods."""

from __future__ import annotations

import asyncio
import inspect

from graphmem import GraphMemory, Thread


def _public(cls: type) -> set[str]:
    return {n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}


def test_thread_every_method_has_an_async_twin() -> None:
    names = _public(Thread)
    sync = {n for n in names if not n.endswith("_async")}
    assert {f"{n}_async" for n in sync} == names - sync


def test_thread_async_twins_run_the_same_calls(memory: GraphMemory) -> None:
    async def scenario() -> tuple[list[str], str, int]:
        thread = await memory.create_thread_async("t", user_id="u", agent_id="a")
        ids = await thread.add_messages_async([{"role": "user", "content": "tea"}])
        await thread.add_memory_async("likes tea", memory_type="preference")
        cards = await asyncio.gather(
            *[
                thread.get_context_card_async(min_relevant_results_by_type={"preference": 1})
                for _ in range(3)
            ]
        )
        assert cards[0] == cards[1] == cards[2]
        messages = await thread.get_messages_async()
        return ids, cards[0].content, await memory.delete_thread_async("t") + len(messages)

    ids, content, count = asyncio.run(scenario())
    assert len(ids) == 1 and "<preference>" in content and count == 3
