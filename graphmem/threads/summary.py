"""A thread's summary and topics: the LLM's rewrite, or a deterministic fallback.

The prompt (``graphmem/prompts/summary.md``) and the JSON schema of the reply
(``summary.schema.json``) are files, so they can be read and reviewed without
the code. The LLM sees the previous summary, the previous topics and the new
messages, and answers ``{"summary": str, "topics": [str, ...]}``; topics are
then cleaned (blank ones dropped, duplicates removed ignoring case, at most
:data:`MAX_TOPICS`). Without an LLM (or with ``enable_context_summary=False``)
:func:`fallback_summary` builds both from the recent messages, the same way
every time.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from string import Template
from typing import Any

from graphmem.ai.llm import strip_json_fences
from graphmem.ai.protocols import LlmProtocol
from graphmem.errors import GraphMemError, ModelError
from graphmem.prompts import quoted

__all__ = [
    "MAX_TOPICS",
    "SummaryUpdate",
    "approx_tokens",
    "clean_topics",
    "fallback_summary",
    "llm_summary",
    "summary_prompt",
    "summary_schema",
]

MAX_TOPICS = 8
_TOPIC_CHARS = 120
_FALLBACK_MESSAGES = 6
_FALLBACK_CHARS = 200
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_STOPWORDS = frozenset(
    [
        "about",
        "after",
        "also",
        "been",
        "before",
        "could",
        "does",
        "from",
        "have",
        "here",
        "into",
        "just",
        "like",
        "make",
        "more",
        "much",
        "need",
        "only",
        "other",
        "over",
        "some",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "very",
        "want",
        "what",
        "when",
        "where",
        "which",
        "while",
        "will",
        "with",
        "would",
        "your",
        "you're",
        "i'm",
        "it's",
        "can't",
        "don't",
        "okay",
        "please",
        "thanks",
        "thank",
    ]
)

SummaryUpdate = tuple[str, tuple[str, ...]]
"""A new summary and its topics."""


def approx_tokens(text: str) -> int:
    """Tokens of ``text`` as graphmem estimates them: one per 4 characters.

    >>> approx_tokens("abcdefghi")
    3
    """
    return math.ceil(len(text) / 4)


@cache
def _resource(name: str) -> str:
    return (resources.files("graphmem") / "prompts" / name).read_text(encoding="utf-8")


def summary_schema() -> dict[str, Any]:
    """The JSON schema of the LLM's reply."""
    schema: dict[str, Any] = json.loads(_resource("summary.schema.json"))
    return schema


def _lines(messages: Sequence[tuple[str, str]]) -> list[str]:
    return [f"{role}: {quoted(content)}" for role, content in messages]


def summary_prompt(
    previous_summary: str | None,
    previous_topics: Sequence[str],
    messages: Sequence[tuple[str, str]],
    token_limit: int = 0,
) -> str:
    """The prompt text; with ``token_limit > 0`` the oldest new messages are left out
    until it fits (the newest one is always kept).

    Each message's line is measured once: the prompt's length is that of the
    template's own text plus the transcript's (as often as the template uses it),
    so leaving a message out is a subtraction, and the prompt is rendered once.
    """
    template = Template(_resource("summary.md"))

    def render(new_messages: str) -> str:
        return template.substitute(
            previous_summary=quoted(previous_summary) if previous_summary else "(none)",
            previous_topics=", ".join(map(quoted, previous_topics)) or "(none)",
            new_messages=new_messages,
        )

    lines = _lines(messages)
    first = 0
    if token_limit > 0 and len(lines) > 1:
        rest = len(render(""))
        uses = len(render("x")) - rest
        sizes = [len(line) for line in lines]
        transcript = sum(sizes) + len(sizes) - 1  # the lines and the newlines between them
        # approx_tokens of the prompt that keeps the lines from `first` on
        while first < len(sizes) - 1 and math.ceil((rest + uses * transcript) / 4) > token_limit:
            transcript -= sizes[first] + 1
            first += 1
    return render("\n".join(lines[first:]) or "(none)")


def clean_topics(topics: Sequence[object]) -> tuple[str, ...]:
    """Topics without blanks or duplicates (ignoring case), at most :data:`MAX_TOPICS`.

    >>> clean_topics(["Pizza", " pizza ", "", "dinner"])
    ('Pizza', 'dinner')
    """
    seen: set[str] = set()
    kept: list[str] = []
    for topic in topics:
        text = " ".join(str(topic).split())[:_TOPIC_CHARS]
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            kept.append(text)
    return tuple(kept[:MAX_TOPICS])


def _bad_reply(problem: str) -> ModelError:
    return ModelError(
        f"thread summary: the LLM's reply {problem}", status=None, provider_message=problem
    )


def _parse(reply: str) -> SummaryUpdate:
    try:
        data = json.loads(strip_json_fences(reply))
    except ValueError:
        raise _bad_reply(f"is not JSON: {reply[:80]!r}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("summary"), str):
        raise _bad_reply("has no string 'summary'")
    if not data["summary"].strip():
        raise _bad_reply("has a blank 'summary'")
    topics = data.get("topics")
    if not isinstance(topics, list) or not all(isinstance(t, str) for t in topics):
        raise _bad_reply("has no 'topics' list of strings")
    extra = sorted(set(data) - {"summary", "topics"})
    if extra:
        raise _bad_reply(f"has keys outside the schema: {', '.join(map(repr, extra))}")
    return " ".join(data["summary"].split()), clean_topics(topics)


def llm_summary(
    llm: LlmProtocol,
    previous_summary: str | None,
    previous_topics: Sequence[str],
    messages: Sequence[tuple[str, str]],
    token_limit: int = 0,
) -> SummaryUpdate:
    """The LLM's new summary and topics.

    Raises:
        ModelError: the LLM failed (an error of a caller's LLM object other than a
            GraphMemError is wrapped in one), or its reply is not the documented JSON.
    """
    prompt = summary_prompt(previous_summary, previous_topics, messages, token_limit)
    try:
        reply = llm.chat([{"role": "user", "content": prompt}], json_schema=summary_schema())
    except GraphMemError:
        raise
    except Exception as error:  # a caller's LLM object: report it as a model failure
        raise ModelError(
            f"thread summary: the LLM failed: {type(error).__name__}: {error}",
            status=None,
            provider_message=f"{type(error).__name__}: {error}",
        ) from error
    if not isinstance(reply, str):
        raise _bad_reply(f"is {type(reply).__name__}, not text")
    return _parse(reply)


def _shorten(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _FALLBACK_CHARS else flat[: _FALLBACK_CHARS - 3] + "..."


def fallback_summary(messages: Sequence[tuple[str, str]]) -> SummaryUpdate:
    """A summary without an LLM: the last few messages, shortened, and as topics the
    most frequent longer words (ties: first seen).

    >>> text, topics = fallback_summary(
    ...     [("user", "Vegetarian dinner on Friday?"), ("assistant", "Dinner ideas.")]
    ... )
    >>> print(text)
    user: Vegetarian dinner on Friday?
    assistant: Dinner ideas.
    >>> topics
    ('dinner', 'vegetarian', 'friday', 'ideas')
    """
    recent = list(messages)[-_FALLBACK_MESSAGES:]
    summary = "\n".join(f"{role}: {_shorten(content)}" for role, content in recent)
    words = [w.lower() for _, content in recent for w in _WORD.findall(content)]
    words = [w for w in words if w not in _STOPWORDS]
    first = {w: i for i, w in reversed(list(enumerate(words)))}
    counts = Counter(words)
    ranked = sorted(counts, key=lambda w: (-counts[w], first[w]))
    return summary, clean_topics(ranked)
