"""The memory service's settings, and its models from flags or the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from graphmem.ai import Embedder, Llm
from graphmem.errors import InvalidArgumentError

__all__ = ["DEFAULT_MAX_BODY_BYTES", "ModelSettings", "ServiceConfig", "embedder_from", "llm_from"]

DEFAULT_MAX_BODY_BYTES = 1_048_576
"""The largest request body the service reads (1 MiB); larger ones get a 413."""


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
        return None
    if settings.api_base is None:
        raise InvalidArgumentError("--llm-api-base", "is required with an LLM model")
    return Llm(settings.model, api_base=settings.api_base, api_key=settings.api_key)


def embedder_from(settings: ModelSettings) -> Embedder | None:
    """The embedder the settings name, or None (the offline default)."""
    if settings.model is None:
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
        process_blocks: run the background worker that processes queued blocks.
    """

    jwt_key: str | None = None
    jwt_algorithms: tuple[str, ...] = ("HS256",)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    process_blocks: bool = True
