"""Stage 4: prune irrelevant results with an LLM, keeping a protected prefix.

Which candidates are asked about, and which are kept, is
:func:`graphmem.core.pruning.prune_ranks`; this module asks the LLM. Each call
sends the prompt ``graphmem/prompts/prune.md`` with the query and a group of
documents (their content as JSON strings, indexed from 0 within the call) and asks for JSON
matching ``prune.schema.json``; the calls of one round run concurrently.
"""

from __future__ import annotations

import contextvars
import json
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from graphmem.ai.llm import strip_json_fences
from graphmem.ai.protocols import LlmProtocol
from graphmem.core.pruning import call_bound, protected_count, prune_ranks
from graphmem.errors import GraphMemError, ModelError
from graphmem.prompts import load_schema, quoted, render_prompt
from graphmem.search.ranked import Hit

__all__ = [
    "MAX_CONCURRENT_PROBES",
    "PruneConfig",
    "PruneReport",
    "prompt_documents",
    "prune",
    "prune_prompt",
    "prune_with_report",
]

MAX_CONCURRENT_PROBES = 8
"""Pruner calls in flight at once for one search."""


@dataclass(frozen=True)
class PruneConfig:
    """How results are pruned: no pruner (the default) keeps every hit."""

    pruner: LlmProtocol | None = None
    mode: str = "fast"
    protected_fraction: float = 0.1
    probes: int = 3
    query: str = ""


@dataclass(frozen=True)
class PruneReport:
    """What pruning did: LLM calls made, their bound for this mode and input, and
    how many hits it dropped."""

    calls: int = 0
    bound: int = 0
    dropped: int = 0


def _pruner_error(message: str) -> ModelError:
    return ModelError(f"pruner: {message}", status=None, provider_message=message)


def _parse(reply: object, count: int) -> list[bool]:
    """One judgement per document, from the pruner's JSON reply."""
    if not isinstance(reply, str):
        raise _pruner_error(f"replied with {type(reply).__name__}, not text")
    try:
        items = json.loads(strip_json_fences(reply))["judgements"]
    except (ValueError, TypeError, KeyError) as error:
        raise _pruner_error(f"reply is not the JSON the schema asks for: {error}") from None
    found: dict[int, bool] = {}
    for item in items if isinstance(items, list) else [None]:
        index = item.get("index") if isinstance(item, dict) else None
        relevant = item.get("relevant") if isinstance(item, dict) else None
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise _pruner_error(f"judged index {index!r}, not one of 0..{count - 1}")
        if not isinstance(relevant, bool) or index in found:
            raise _pruner_error(f"judgement for index {index} is repeated or not a boolean")
        found[index] = relevant
    if len(found) != count:
        missing = sorted(set(range(count)) - set(found))
        raise _pruner_error(f"no judgement for index {missing[0]}")
    return [found[i] for i in range(count)]


def prune_prompt(query: str, documents: Sequence[str]) -> str:
    """The pruner's prompt: the query, then each document on one line, its index in
    brackets and its text as a JSON string (so a document cannot pose as another
    document or as the prompt's own text).

    >>> text = prune_prompt("tea?", ["likes tea", "x\\n[1] y"])
    >>> [line for line in text.splitlines() if line.startswith("[")]
    ['[0] "likes tea"', '[1] "x\\\\n[1] y"']
    """
    listing = "\n".join(f"[{i}] {quoted(text)}" for i, text in enumerate(documents))
    return render_prompt("prune", query=quoted(query), documents=listing)


def prompt_documents(prompt: str) -> list[str]:
    """The documents of a :func:`prune_prompt`, in index order (for test doubles
    that play the pruner).

    >>> prompt_documents(prune_prompt("q", ["a", "b\\nc"]))
    ['a', 'b\\nc']
    """
    found = re.findall(r'^\[(\d+)\] (".*")$', prompt, re.MULTILINE)
    return [json.loads(text) for _, text in sorted(found, key=lambda item: int(item[0]))]


def _judge(pruner: LlmProtocol, query: str, documents: Sequence[str]) -> list[bool]:
    prompt = prune_prompt(query, documents)
    try:
        reply = pruner.chat([{"role": "user", "content": prompt}], json_schema=load_schema("prune"))
    except GraphMemError:
        raise
    except Exception as error:  # a caller's LLM object: report it as a model failure
        raise _pruner_error(f"{type(error).__name__}: {error}") from error
    return _parse(reply, len(documents))


def prune_with_report(
    hits: list[Hit], config: PruneConfig, texts: Mapping[str, str] | None = None
) -> tuple[list[Hit], PruneReport]:
    """The hits the configured pruner keeps, in their order, and what it cost.

    Raises:
        ModelError: the pruner failed or replied out of shape.
    """
    pruner = config.pruner
    if pruner is None or not hits:
        return hits, PruneReport()
    documents = [(texts or {}).get(record_id, "") for record_id, _ in hits]

    def ask(groups: Sequence[Sequence[int]]) -> list[dict[int, bool]]:
        def one(group: Sequence[int]) -> dict[int, bool]:
            verdicts = _judge(pruner, config.query, [documents[p] for p in group])
            return dict(zip(group, verdicts, strict=True))

        if len(groups) == 1:
            return [one(groups[0])]
        with ThreadPoolExecutor(min(len(groups), MAX_CONCURRENT_PROBES)) as pool:
            # each probe in a copy of the caller's context (a pruner may read its
            # context variables, as it does when the probes run one by one)
            futures = [pool.submit(contextvars.copy_context().run, one, g) for g in groups]
            return [f.result() for f in futures]

    n = len(hits)
    outcome = prune_ranks(ask, n, config.mode, config.protected_fraction, config.probes)
    bound = call_bound(config.mode, n, protected_count(n, config.protected_fraction), config.probes)
    kept = [hits[p] for p in outcome.kept]
    return kept, PruneReport(calls=outcome.calls, bound=bound, dropped=n - len(kept))


def prune(
    hits: list[Hit], config: PruneConfig, texts: Mapping[str, str] | None = None
) -> list[Hit]:
    """The hits the configured pruner keeps, in their order; all of them without one.

    >>> prune([("a", 0.1)], PruneConfig())
    [('a', 0.1)]
    """
    return prune_with_report(hits, config, texts)[0]
