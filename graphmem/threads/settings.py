"""A thread's settings: checked once, persisted as JSON with the thread, read back on reopen.

``context_card_type_search_concurrency`` is not among them: it belongs to one
handle (:class:`graphmem.threads.Thread`) and is never stored.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from graphmem.core.config_model import fields_of
from graphmem.core.validation import MAX_COUNT, check_flag
from graphmem.errors import InvalidArgumentError
from graphmem.extraction.config import (
    THREAD_OVERRIDES,
    MemoryExtractionConfig,
    check_extraction_config,
    check_thread_override,
)
from graphmem.search.config import ModelRef, PruningMemorySearchConfig, TopKMemorySearchConfig

__all__ = [
    "DEFAULT_TYPE_SEARCH_CONCURRENCY",
    "MemoryExtractionConfig",
    "SearchModels",
    "ThreadSettings",
    "check_concurrency",
    "check_search_config",
    "resolve_search_config",
]

DEFAULT_TYPE_SEARCH_CONCURRENCY = 5
"""Per-type context-card searches that may run at once on one handle."""


_CONFIG_TYPES: dict[str, type[TopKMemorySearchConfig]] = {
    "top_k": TopKMemorySearchConfig,
    "pruning": PruningMemorySearchConfig,
}
_PRUNING_FIELDS = frozenset(PruningMemorySearchConfig.model_fields) - frozenset(
    TopKMemorySearchConfig.model_fields
)


def check_search_config(value: object, argument: str = "search_config") -> TopKMemorySearchConfig:
    """A thread's ``search_config``: a config object, or its stored JSON form (a
    mapping; ``"type"``: ``"top_k"`` or ``"pruning"``, guessed from the fields
    when absent). Model objects it holds become references (:class:`ModelRef`).

    Raises:
        InvalidArgumentError: not a search config, or a bad field, named under
            ``argument`` (``search_config.max_results``).
    """
    if isinstance(value, Mapping):
        data = dict(value)
        kind = data.pop("type", None)
        if kind is None:
            kind = "pruning" if _PRUNING_FIELDS & data.keys() else "top_k"
        if kind not in _CONFIG_TYPES:
            raise InvalidArgumentError(
                f"{argument}.type", f"must be 'top_k' or 'pruning'; got {kind!r:.60}"
            )
        with fields_of(argument):
            value = _CONFIG_TYPES[kind](**data)
    if not isinstance(value, TopKMemorySearchConfig):
        raise InvalidArgumentError(
            argument,
            "must be a TopKMemorySearchConfig, a PruningMemorySearchConfig or its "
            f"model_dump() mapping, not {type(value).__name__}",
        )
    with fields_of(argument):
        return _CONFIG_TYPES[_config_type(value)].model_validate(value.model_dump(mode="json"))


def _config_type(config: TopKMemorySearchConfig) -> str:
    return "pruning" if isinstance(config, PruningMemorySearchConfig) else "top_k"


@dataclass(frozen=True)
class SearchModels:
    """Model objects a thread handle binds to its stored search config's references.

    Attributes:
        reranker: used for a stored reranker reference (None: the GraphMemory's).
        pruner: used for a stored pruner reference, or a pruning config without
            one (None: the GraphMemory's ``pruner_llm``, then its config's pruner).
    """

    reranker: object = None
    pruner: object = None

    @classmethod
    def of(cls, config: object) -> SearchModels:
        """The live model objects a config holds (references left out)."""
        found = [getattr(config, name, None) for name in ("reranker", "pruner")]
        reranker, pruner = (None if isinstance(m, ModelRef) else m for m in found)
        return cls(reranker, pruner)


def _missing(thread_id: str, name: str, ref: object, argument: str) -> InvalidArgumentError:
    what = f"{ref.kind} {ref.model or ''}".strip() if isinstance(ref, ModelRef) else "an LLM"
    return InvalidArgumentError(
        f"search_config.{name}",
        f"thread {thread_id!r} stores a search config that needs a {name} ({what}), "
        f"which cannot be stored: reopen it with get_thread({thread_id!r}, {argument}=...) "
        f"or give the GraphMemory one",
    )


def _first(*models: object) -> object:
    return next((m for m in models if m is not None), None)


def resolve_search_config(
    thread_id: str,
    stored: TopKMemorySearchConfig | None,
    handle: SearchModels,
    client: TopKMemorySearchConfig,
    client_pruner: object,
) -> TopKMemorySearchConfig:
    """The config a thread's searches and context cards use: the stored one (the
    client's when none is stored) with its model references bound to objects,
    the handle's first, then the client's.

    Raises:
        InvalidArgumentError: a model the stored config needs is not available.
    """
    if stored is None:
        return client
    update: dict[str, object] = {}
    if stored.reranker is not None:
        found = _first(handle.reranker, client.reranker)
        if found is None:
            raise _missing(thread_id, "reranker", stored.reranker, "reranker")
        update["reranker"] = found
    if isinstance(stored, PruningMemorySearchConfig):
        found = _first(handle.pruner, client_pruner, getattr(client, "pruner", None))
        if found is None:
            raise _missing(thread_id, "pruner", stored.pruner, "pruner_llm")
        update["pruner"] = found
    return type(stored)(**{**dict(stored), **update})


def _stored_search_config(stored: object) -> TopKMemorySearchConfig | None:
    """A stored search config read back; one that is not a search config (stored
    as free JSON by an earlier version) is ignored with a warning."""
    try:
        return check_search_config(stored)
    except InvalidArgumentError as error:
        warnings.warn(
            f"a thread's stored search_config is not a search config ({error}); the "
            "GraphMemory's is used until update_thread(..., search_config=...) replaces it",
            RuntimeWarning,
            stacklevel=3,
        )
        return None


def _check_every(argument: str, value: object) -> int:
    """``-1`` (once per ``add_messages`` call) or a positive count."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not (value == -1 or 1 <= value <= MAX_COUNT)
    ):
        raise InvalidArgumentError(argument, f"must be -1 or an integer >= 1; got {value!r}")
    return value


def _check_limit(argument: str, value: object) -> int:
    """A token limit: any integer; 0 or less turns the limit off."""
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_COUNT:
        raise InvalidArgumentError(argument, f"must be an integer; got {value!r}")
    return value


def check_concurrency(value: object) -> int:
    """``context_card_type_search_concurrency``: an integer from 1 to 64."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 64:
        raise InvalidArgumentError(
            "context_card_type_search_concurrency",
            f"must be an integer from 1 to 64; got {value!r}",
        )
    return value


@dataclass(frozen=True)
class ThreadSettings:
    """The persisted settings of a thread.

    Attributes:
        memory_extraction_config: the fields of a
            :class:`~graphmem.extraction.config.MemoryExtractionConfig` that the
            thread sets (JSON); the others come from the client's config.
        search_config: the thread's search config, as stored (its reranker and
            pruner as :class:`~graphmem.search.config.ModelRef` references, bound
            to objects when the thread searches); None: the GraphMemory's.
        context_summary_update_frequency: rewrite the summary every this many new
            messages; ``-1``: once per ``add_messages`` call.
        enable_context_summary: ``False`` keeps the deterministic summary even
            when an LLM is set.
        memory_extraction_window: overrides the extraction config's window
            when not ``-1``; otherwise it takes what the config's field takes
            (1 to 1000), as do the next two.
        memory_extraction_frequency: overrides its frequency when not ``-1``.
        memory_extraction_token_limit: overrides its token limit when not 0.
        max_message_token_length: likewise.
        message_shortening_input_token_limit: likewise.
        context_card_token_limit: the largest summary prompt, in tokens (about 4
            characters each); older messages are left out to fit; 0 or less: no limit.
    """

    memory_extraction_config: dict[str, Any] | None = None
    search_config: TopKMemorySearchConfig | None = None
    context_summary_update_frequency: int = -1
    enable_context_summary: bool = True
    memory_extraction_window: int = -1
    memory_extraction_frequency: int = -1
    memory_extraction_token_limit: int = 0
    context_card_token_limit: int = 100_000
    max_message_token_length: int = 0
    message_shortening_input_token_limit: int = 30_000

    @classmethod
    def checked(cls, base: ThreadSettings | None = None, **given: object) -> ThreadSettings:
        """``base`` (default settings when None) with the ``given`` values checked
        and applied; a value of ``None`` leaves that setting as it is."""
        changes: dict[str, Any] = {}
        for name, value in given.items():
            if value is None:
                continue
            if name == "search_config":
                changes[name] = check_search_config(value)
            elif name == "memory_extraction_config":
                changes[name] = check_extraction_config(name, value)
            elif name == "enable_context_summary":
                changes[name] = check_flag(name, value)
            elif name == "context_summary_update_frequency":
                changes[name] = _check_every(name, value)
            elif name in THREAD_OVERRIDES:
                changes[name] = check_thread_override(name, value)
            elif name in {f.name for f in fields(cls)}:
                changes[name] = _check_limit(name, value)
            else:
                raise InvalidArgumentError(name, "is not a thread setting")
        return replace(base or cls(), **changes)

    def to_json(self) -> dict[str, Any]:
        """The settings as stored."""
        config = self.search_config
        plain = replace(self, search_config=None)
        stored: dict[str, Any] = json.loads(json.dumps(asdict(plain)))
        if config is not None:
            stored["search_config"] = {
                "type": _config_type(config),
                **config.model_dump(mode="json"),
            }
        return stored

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> ThreadSettings:
        """Settings read back from the store (unknown keys, from a newer version, ignored)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in stored.items() if k in known}
        if values.get("search_config") is not None:
            values["search_config"] = _stored_search_config(values["search_config"])
        return cls(**values)
