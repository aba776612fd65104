"""The stored summary under concurrent writers, deleted and edited messages, and a
caller's LLM object that raises: every message is folded into the summary once,
and no summary shows a message that was deleted or changed."""

from __future__ import annotations

import collections
import itertools
import json
import re
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory, HashingEmbedder, Llm, MemoryExtractionConfig, ModelError
from graphmem.testing import ModelServer
from graphmem.thread_models import ThreadInfo
from graphmem.threads.summary import fallback_summary

_NO_EXTRACTION = {"memory_extraction_config": MemoryExtractionConfig(extract_memories=False)}
_TOKEN = re.compile(r"\bm\d+\b")


def _fold(body: dict[str, Any]) -> str:
    """A summary LLM that keeps every token: the previous summary, then the tokens
    of the new messages, so the summary shows which messages were folded in."""
    prompt = body["messages"][-1]["content"]
    previous = prompt.split("Previous summary:\n", 1)[1].split("\n\nPrevious topics:", 1)[0]
    new = _TOKEN.findall(prompt.split("New messages:\n", 1)[1])
    kept = [] if previous == "(none)" else [json.loads(previous)]
    return json.dumps({"summary": " ".join([*kept, *new]), "topics": ["t"]})


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer(dimension=16) as running:
        running.add_rule(lambda body: "Previous summary:" in str(body), _fold)
        yield running


def _memory(path: Path, server: ModelServer) -> GraphMemory:
    llm = Llm("test-chat", api_base=server.url, max_retries=0)
    return GraphMemory(path, embedder=HashingEmbedder(dim=16), llm=llm, **_NO_EXTRACTION)


def _say(*tokens: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": t} for t in tokens]


def _tokens(first: int, stop: int) -> list[str]:
    return [f"m{i}" for i in range(first, stop)]


def test_a_writer_between_a_refresh_and_its_read_is_not_summarized_for_it(
    tmp_path: Path, server: ModelServer
) -> None:
    # A stores m0-m9; when its summary update has read the thread (10 messages),
    # B stores m10-m19 and its own update fails. A summarizes m0-m9, the positions
    # it read, not the last ten messages; the next update adds m10-m20.
    with _memory(tmp_path / "hook.db", server) as memory:
        a = memory.create_thread("t", user_id="u")
        b = memory.get_thread("t")
        read = a.info
        fired: list[ThreadInfo] = []

        def info() -> ThreadInfo:
            seen = read()
            if seen.message_count == 10 and not fired:  # A's update has read the thread
                fired.append(seen)
                server.fail("chat/completions", 503)
                with pytest.warns(RuntimeWarning, match="summary was not updated"):
                    b.add_messages(_say(*_tokens(10, 20)))
            return seen

        a.info = info  # type: ignore[method-assign]
        a.add_messages(_say(*_tokens(0, 10)))
        assert fired
        stored = b.info()
        assert (stored.summary, stored.summarized_count) == (" ".join(_tokens(0, 10)), 10)
        b.add_messages(_say("m20"))
        stored = b.info()
        assert (stored.summary, stored.summarized_count) == (" ".join(_tokens(0, 21)), 21)
        assert b.get_summary() == stored.summary


def test_a_refresh_that_lost_to_another_writer_stops_once_its_messages_are_covered(
    tmp_path: Path, server: ModelServer
) -> None:
    with _memory(tmp_path / "lost.db", server) as memory:
        a = memory.create_thread("t", user_id="u")
        b = memory.get_thread("t")
        read = a.info
        fired: list[int] = []

        def info() -> ThreadInfo:
            seen = read()
            if seen.message_count == 10 and not fired:
                fired.append(1)
                b.add_messages(_say(*_tokens(10, 20)))  # B's update covers m0-m19 first
            return seen

        a.info = info  # type: ignore[method-assign]
        a.add_messages(_say(*_tokens(0, 10)))
        stored = b.info()
        assert (stored.summary, stored.summarized_count) == (" ".join(_tokens(0, 20)), 20)
        assert len(server.requests_to("chat/completions")) == 2  # B's, and A's refused one


def test_concurrent_writers_fold_every_message_into_the_summary_once(
    tmp_path: Path, server: ModelServer
) -> None:
    writers, batches, size = 4, 12, 5
    numbers = itertools.count()
    lock = threading.Lock()
    errors: list[BaseException] = []
    with _memory(tmp_path / "race.db", server) as memory:
        thread = memory.create_thread("t", user_id="u")

        def write() -> None:
            handle = memory.get_thread("t")
            try:
                for _ in range(batches):
                    with lock:
                        batch = [f"m{next(numbers)}" for _ in range(size)]
                    handle.add_messages(_say(*batch))
            except BaseException as exc:
                errors.append(exc)

        workers = [threading.Thread(target=write) for _ in range(writers)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert errors == []
        info = thread.info()
        total = writers * batches * size
        assert (info.message_count, info.summarized_count) == (total, total)
        assert info.summary is not None
        seen = collections.Counter(_TOKEN.findall(info.summary))
        assert seen == collections.Counter(f"m{i}" for i in range(total))


def test_a_message_deleted_while_the_summary_is_written_is_left_out(tmp_path: Path) -> None:
    ids: list[str] = []
    deleted: list[str] = []
    with ModelServer(dimension=16) as server, _memory(tmp_path / "gone.db", server) as memory:

        def fold_and_delete(body: dict[str, Any]) -> str:
            if not deleted:  # while m0-m4 are summarized the first time, m2 goes
                deleted.append(ids[2])
                memory.get_thread("t").delete_message(ids[2])
            return _fold(body)

        server.add_rule(lambda body: "Previous summary:" in str(body), fold_and_delete)
        thread = memory.create_thread("t", user_id="u", context_summary_update_frequency=5)
        ids.extend(thread.add_messages(_say(*_tokens(0, 4))))
        ids.extend(thread.add_messages(_say("m4")))
        info = thread.info()
        assert deleted and (info.summary, info.summarized_count) == ("m0 m1 m3 m4", 5)
        assert len(server.requests_to("chat/completions")) == 2  # made again without m2


# -- deleted and edited messages ------------------------------------------------------


def test_a_deleted_message_leaves_the_summary_get_summary_and_the_card(handles: ExitStack) -> None:
    memory = handles.enter_context(GraphMemory(":memory:", embedder=HashingEmbedder(dim=16)))
    thread = memory.create_thread("t", user_id="u")
    ids = thread.add_messages(
        [
            {"role": "user", "content": "Book a table for Friday."},
            {"role": "user", "content": "My card number is 4111 1111 1111 1111."},
            {"role": "assistant", "content": "Booked for Friday at 7."},
        ]
    )
    assert "4111" in (thread.info().summary or "")
    thread.delete_message(ids[1])
    kept = [("user", "Book a table for Friday."), ("assistant", "Booked for Friday at 7.")]
    info = thread.info()
    assert (info.summary, info.topics) == fallback_summary(kept)
    assert info.summarized_count == 0  # it covers no message: the next update starts over
    assert thread.get_summary() == info.summary
    card = thread.get_context_card(recent_message_count=0)
    assert "4111" not in card.content and "card" not in card.topics
    thread.update_message(ids[2], content="Booked for Saturday at 8.")
    kept[1] = ("assistant", "Booked for Saturday at 8.")
    assert (thread.info().summary, thread.info().topics) == fallback_summary(kept)
    assert "Friday at 7" not in thread.get_summary()
    thread.add_messages(_say("Thanks."))
    info = thread.info()
    assert (info.summary, info.summarized_count) == (
        fallback_summary([*kept, ("user", "Thanks.")])[0],
        4,
    )


def test_with_an_llm_a_deleted_message_is_left_out_of_the_next_summary(
    tmp_path: Path, server: ModelServer
) -> None:
    with _memory(tmp_path / "llm.db", server) as memory:
        thread = memory.create_thread("t", user_id="u")
        ids = thread.add_messages(_say("m0", "m1", "m2"))
        assert thread.info().summary == "m0 m1 m2"
        thread.update_message(ids[0], metadata={"seen": True})  # no new content: kept
        assert thread.info().summary == "m0 m1 m2"
        thread.delete_message(ids[1])
        info = thread.info()
        assert (info.summary, info.summarized_count) == ("user: m0\nuser: m2", 0)
        assert thread.get_context_card(recent_message_count=0).summary == "user: m0\nuser: m2"
        assert thread.get_summary() == "m0 m2"  # the LLM's, over the current messages
        thread.add_messages(_say("m3"))
        prompt = server.requests_to("chat/completions")[-1].body["messages"][-1]["content"]
        assert "Previous summary:\n(none)" in prompt and "m1" not in prompt
        assert (thread.info().summary, thread.info().summarized_count) == ("m0 m2 m3", 4)


def test_editing_a_message_not_summarized_yet_keeps_the_summary(
    tmp_path: Path, server: ModelServer
) -> None:
    with _memory(tmp_path / "later.db", server) as memory:
        thread = memory.create_thread("t", user_id="u", context_summary_update_frequency=2)
        thread.add_messages(_say("m0", "m1"))
        (late,) = thread.add_messages(_say("m2"))
        thread.update_message(late, content="m9")
        thread.delete_message(late)
        assert (thread.info().summary, thread.info().summarized_count) == ("m0 m1", 2)


# -- a caller's LLM object that raises ----------------------------------------------


class _RaisingLlm:
    def __init__(self, error: Exception) -> None:
        self.error = error

    def chat(self, messages: list[dict[str, str]], json_schema: Any = None) -> str:
        raise self.error


@pytest.mark.parametrize("error", [TimeoutError("chat timed out"), ConnectionError("reset")])
def test_a_raising_llm_object_warns_and_get_summary_raises_a_model_error(
    error: Exception,
    handles: ExitStack,
) -> None:
    memory = handles.enter_context(
        GraphMemory(":memory:", embedder=HashingEmbedder(dim=16), llm=_RaisingLlm(error))
    )
    thread = memory.create_thread("t", **_NO_EXTRACTION)
    with pytest.warns(RuntimeWarning, match=type(error).__name__):
        ids = thread.add_messages(_say("hello"))
    assert [m.id for m in thread.get_messages()] == ids
    with pytest.raises(ModelError, match=type(error).__name__) as raised:
        thread.get_summary()
    assert raised.value.__cause__ is error
