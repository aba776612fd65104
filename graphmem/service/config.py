"""The memory service's settings, and its models from flags or the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from graphmem.ai import Embedder, Llm
from graphmem.errors import InvalidArgumentError

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_SEARCH_RESULTS",
    "ModelSettings",
    "ServiceConfig",
    "embedder_from",
    "llm_from",
]

DEFAULT_MAX_BODY_BYTES = 1_048_576
"""The largest request body the service reads (1 MiB); larger ones get a 413."""

DEFAULT_MAX_SEARCH_RESULTS = 100
"""The largest ``max_results`` a ``POST /v1/search`` may ask for; more is a 400.
Each result carries its linked records too (up to 100 of them with ``num_hops``),
so this bounds an answer at about 10,000 rendered records."""


@dataclass(frozen=True)
class ModelSettings:
    """One model's ``model`` / ``api_base`` / ``api_key``; a flag wins over the environment
    (``GRAPHMEM_<KIND>_MODEL``, ``GRAPHMEM_<KIND>_API_BASE``, ``GRAPHMEM_<KIND>_API_KEY``)."""

    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None

    @classmethod
    def resolve(
        cls,
        kind: str,
        env: Mapping[str, str] | None = None,
        *,
        model: str | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
    ) -> ModelSettings:
        source = os.environ if env is None else env
        prefix = f"GRAPHMEM_{kind.upper()}_"
        return cls(
            model=model or source.get(prefix + "MODEL") or None,
            api_base=api_base or source.get(prefix + "API_BASE") or None,
            api_key=api_key or source.get(prefix + "API_KEY") or None,
        )


def llm_from(settings: ModelSettings) -> Llm | None:
    """The LLM the settings name, or None (no LLM: no extraction, deterministic summaries)."""
    if settings.model is None:
        if settings.api_base is not None or settings.api_key is not None:
            raise InvalidArgumentError(
                "model", "is required with an LLM API base or key (none: no LLM)"
            )
        return None
    if settings.api_base is None:
        raise InvalidArgumentError("api_base", "is required with an LLM model")
    return Llm(settings.model, api_base=settings.api_base, api_key=settings.api_key)


def embedder_from(settings: ModelSettings) -> Embedder | None:
    """The embedder the settings name, or None (the offline default).

    Raises:
        InvalidArgumentError: ``model``: an API base or key without a model (the
            store would otherwise be built, silently, with the offline default).
    """
    if settings.model is None:
        if settings.api_base is not None or settings.api_key is not None:
            raise InvalidArgumentError(
                "model", "is required with an embedder API base or key (none: the offline default)"
            )
        return None
    if settings.api_base is None:
        return Embedder(settings.model, api_key=settings.api_key)
    return Embedder(settings.model, api_base=settings.api_base, api_key=settings.api_key)


@dataclass(frozen=True)
class ServiceConfig:
    """How the service checks callers and bounds requests.

    Attributes:
        jwt_key: verifies bearer JWTs (an HMAC secret, or a PEM public key for
            RS256/ES256); None: only API keys are accepted.
        jwt_algorithms: the accepted JWT signature algorithms.
        max_body_bytes: a larger request body is refused with 413.
        max_search_results: a search asking for more results (``max_results``)
            is refused with 400 ``INVALID_ARGUMENT`` (>= 1).
        process_blocks: run the background worker that processes queued blocks.

    Raises:
        InvalidArgumentError: ``max_search_results`` is not a whole number >= 1.
    """

    jwt_key: str | None = None
    jwt_algorithms: tuple[str, ...] = ("HS256",)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_search_results: int = DEFAULT_MAX_SEARCH_RESULTS
    process_blocks: bool = True

    def __post_init__(self) -> None:
        limit = self.max_search_results
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidArgumentError("max_search_results", f"must be an int >= 1, got {limit!r}")
