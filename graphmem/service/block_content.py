"""A memory block's content: its checks, its messages and its text, and what an
earlier extraction left (graphmem.service.blocks)."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from graphmem.core.validation import check_content
from graphmem.errors import InvalidArgumentError
from graphmem.service.schemas import AddMemoryBody

__all__ = ["block_text", "checked_content", "restarted", "summary_prompt", "turn_messages"]


@cache
def summary_prompt() -> str:
    return (resources.files("graphmem.prompts") / "block_summary.md").read_text("utf-8").strip()


def turn_messages(turns: list[dict[str, Any]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for turn in turns:
        for role in ("user", "assistant"):
            text = turn.get(f"{role}_content")
            if text is not None:
                out.append({"role": role, "content": text})
    return out


def block_text(content: dict[str, Any]) -> str:
    """The block's exchanges and facts as plain text (what the summary is made from)."""
    lines = [f"{m['role']}: {m['content']}" for m in turn_messages(content["messages"])]
    lines += [f"fact: {fact}" for fact in content["facts"]]
    return "\n".join(lines)


def restarted(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """A block's extraction state when it is to be extracted again: what an earlier
    run wrote is stale."""
    stale = [*(state or {}).get("stale", []), *(state or {}).get("record_ids", [])]
    return {"stale": stale} if stale else None


def _check_text(where: str, text: str) -> None:
    """A turn's text or a fact, checked as memory content; an error names it by its
    place in the request's body (``messages[0].assistant_content``, ``facts[2]``)."""
    try:
        check_content(text)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(where, exc.detail) from exc


def checked_content(body: AddMemoryBody) -> dict[str, Any]:
    """The block's content from the request, checked: raises before any write."""
    turns = [t.model_dump() for t in body.messages]
    for i, turn in enumerate(turns):
        if turn["user_content"] is None and turn["assistant_content"] is None:
            raise InvalidArgumentError(
                f"messages[{i}]", "give user_content and/or assistant_content"
            )
        for field in ("user_content", "assistant_content"):
            if turn[field] is not None:
                _check_text(f"messages[{i}].{field}", turn[field])
    for i, fact in enumerate(body.facts):
        _check_text(f"facts[{i}]", fact)
    if not turns and not body.facts:
        raise InvalidArgumentError("messages", "a block needs messages and/or facts")
    return {"messages": turns, "facts": list(body.facts)}
