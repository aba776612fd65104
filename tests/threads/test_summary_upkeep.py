"""The stored summary under concurrent writers, deleted and edited messages, and a
caller's LLM object that raises: every message is folded into the summary once,
and no summary shows a message that was deleted or changed."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem import GraphMemory, HashingEmbedder, MemoryExtractionConfig, ModelError

_NO_EXTRACTION = {"memory_extraction_config": MemoryExtractionConfig(extract_memories=False)}


def _say(*tokens: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": t} for t in tokens]


# -- a caller's LLM object that raises ----------------------------------------------


class _RaisingLlm:
    def __init__(self, error: Exception) -> None:
        self.error = error

    def chat(self, messages: list[dict[str, str]], json_schema: Any = None) -> str:
        raise self.error


@pytest.mark.parametrize("error", [TimeoutError("chat timed out"), ConnectionError("reset")])
def test_a_raising_llm_object_warns_and_get_summary_raises_a_model_error(
    error: Exception,
) -> None:
    memory = GraphMemory(":memory:", embedder=HashingEmbedder(dim=16), llm=_RaisingLlm(error))
    thread = memory.create_thread("t", **_NO_EXTRACTION)
    with pytest.warns(RuntimeWarning, match=type(error).__name__):
        ids = thread.add_messages(_say("hello"))
    assert [m.id for m in thread.get_messages()] == ids
    with pytest.raises(ModelError, match=type(error).__name__) as raised:
        thread.get_summary()
    assert raised.value.__cause__ is error
