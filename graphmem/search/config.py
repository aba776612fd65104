"""Search configs: how many direct results, reranking, LLM pruning, token budgets.

:class:`TopKMemorySearchConfig` keeps a fixed number of direct results and may
rerank them; :class:`PruningMemorySearchConfig` adds LLM pruning. Both are
frozen pydantic models: ``model_dump()`` gives plain JSON-ready data (the
reranker and the pruner become references, :class:`ModelRef`, never objects or
API keys) and ``model_validate()`` reads it back. A config read back holds the
references, not the models; :meth:`TopKMemorySearchConfig.with_models` supplies
the objects again, and a search with an unresolved reference is refused.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainSerializer, PlainValidator, StrictInt

from graphmem.core.config_model import CheckedModel, ModeEnum, mode_of
from graphmem.errors import InvalidArgumentError

__all__ = [
    "DEFAULT_MAX_RESULTS",
    "DEFAULT_NUM_PROBE_POINTS",
    "DEFAULT_PROTECTED_FRACTION",
    "DEFAULT_RERANKER_MAX_CANDIDATES",
    "HybridConfig",
    "ModelRef",
    "PruningEvaluationMode",
    "PruningMemorySearchConfig",
    "TopKMemorySearchConfig",
]

DEFAULT_MAX_RESULTS = 10
DEFAULT_RERANKER_MAX_CANDIDATES = 50
DEFAULT_NUM_PROBE_POINTS = 3
DEFAULT_PROTECTED_FRACTION = 0.1


class PruningEvaluationMode(ModeEnum):
    """How much of the ranked list the pruner LLM reads (see docs/search.md).

    A config takes a mode by its member, its name or its value, in any case
    (``"EXTENDED"``, ``"extended"``); the value (``"extended"``) is stored.
    """

    FAST = "fast"
    """Probe windows, lowest first, and stop once no probe can move the cutoff."""
    EXTENDED = "extended"
    """Ask every probe window; the cutoff may pass an irrelevant document."""
    EXHAUSTIVE = "exhaustive"
    """Ask about every candidate, one call each."""


class ModelRef(CheckedModel):
    """A stored reference to a model object: its class and, for graphmem's HTTP
    adapters, ``model`` and ``api_base`` (never the API key)."""

    kind: str
    model: str | None = None
    api_base: str | None = None

    @classmethod
    def of(cls, obj: object) -> ModelRef:
        """The reference of ``obj`` (an adapter or any object)."""
        client = getattr(obj, "_client", None)
        model = getattr(obj, "model", None)
        api_base = getattr(client, "api_base", None)
        return cls(
            kind=type(obj).__name__,
            model=model if isinstance(model, str) else None,
            api_base=api_base if isinstance(api_base, str) else None,
        )


def _model_checker(method: str) -> Any:
    def check(value: object) -> object:
        if value is None or isinstance(value, ModelRef):
            return value
        if isinstance(value, dict):
            return ModelRef.model_validate(value)
        if not callable(getattr(value, method, None)):
            raise ValueError(f"needs a {method}() method, got {type(value).__name__}")
        return value

    return check


def _dump_model(value: object) -> dict[str, Any] | None:
    if value is None:
        return None
    ref = value if isinstance(value, ModelRef) else ModelRef.of(value)
    return ref.model_dump()


RerankerField = Annotated[
    Any, PlainValidator(_model_checker("rerank")), PlainSerializer(_dump_model)
]
"""A reranker object, a stored :class:`ModelRef`, or None; dumped as a reference."""
PrunerField = Annotated[Any, PlainValidator(_model_checker("chat")), PlainSerializer(_dump_model)]
"""A chat LLM object, a stored :class:`ModelRef`, or None; dumped as a reference."""


def _positive_or_none(argument: str, value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgumentError(argument, f"must be a positive int or None, got {value!r}")
    return value


class HybridConfig(CheckedModel):
    """Weighted reciprocal rank fusion of the vector and keyword rankings.

    A record's fused score is ``vector_weight / (c + vector_rank) +
    keyword_weight / (c + keyword_rank)`` (ranks from 1; a ranking that misses
    the record adds nothing); ties by id. Each ranking holds
    ``max(candidates, max_results)`` records.
    """

    vector_weight: float = 1.0
    keyword_weight: float = 1.0
    c: float = 60.0
    candidates: StrictInt = 50

    def model_post_init(self, context: Any, /) -> None:
        for name in ("vector_weight", "keyword_weight", "c"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise InvalidArgumentError(name, f"must be finite and >= 0: {value}")
        if self.vector_weight == 0 and self.keyword_weight == 0:
            raise InvalidArgumentError("keyword_weight", "must be > 0 when vector_weight is 0")
        if isinstance(self.candidates, bool) or self.candidates < 1:
            raise InvalidArgumentError("candidates", f"must be >= 1: {self.candidates}")


class TopKMemorySearchConfig(CheckedModel):
    """Keep ``max_results`` direct results, optionally reranked, within token budgets.

    Args:
        max_results: direct results a search keeps when the call gives none (>= 0,
            default 10).
        reranker: reorders the kept results (any object with
            ``rerank(query, documents)``, e.g. :class:`graphmem.Reranker`); never
            adds or drops one. None: no reranking.
        reranker_max_candidates: the reranker sees at most this many results (the
            first ones; the rest keep their place after them). Default 50.
        token_budget: hard budget on the formatted results' tokens (None: none).
        soft_token_budget: soft target (None: none). See docs/search.md.
        hybrid: the fusion used by ``strategy="hybrid"``.
    """

    max_results: StrictInt = DEFAULT_MAX_RESULTS
    reranker: RerankerField = None
    reranker_max_candidates: StrictInt = DEFAULT_RERANKER_MAX_CANDIDATES
    token_budget: StrictInt | None = None
    soft_token_budget: StrictInt | None = None
    hybrid: HybridConfig = Field(default_factory=HybridConfig)

    def model_post_init(self, context: Any, /) -> None:
        if isinstance(self.max_results, bool) or self.max_results < 0:
            raise InvalidArgumentError("max_results", f"must be >= 0, got {self.max_results}")
        if isinstance(self.reranker_max_candidates, bool) or self.reranker_max_candidates < 1:
            raise InvalidArgumentError(
                "reranker_max_candidates", f"must be >= 1, got {self.reranker_max_candidates}"
            )
        _positive_or_none("token_budget", self.token_budget)
        _positive_or_none("soft_token_budget", self.soft_token_budget)

    @property
    def prunes(self) -> bool:
        """Whether this config prunes with an LLM."""
        return False

    def with_models(self, *, reranker: object = None, pruner: object = None) -> Any:
        """A copy holding these model objects in place of stored references
        (None: keep what the config holds)."""
        update: dict[str, object] = {}
        if reranker is not None:
            update["reranker"] = reranker
        if pruner is not None and "pruner" in type(self).model_fields:
            update["pruner"] = pruner
        return type(self)(**{**dict(self), **update})


class PruningMemorySearchConfig(TopKMemorySearchConfig):
    """:class:`TopKMemorySearchConfig` plus LLM pruning after reranking.

    Args:
        pruner: the LLM that judges relevance (any object with
            ``chat(messages, json_schema=...)``, e.g. :class:`graphmem.Llm`). None:
            the ``pruner_llm`` of the :class:`graphmem.GraphMemory` that searches.
        evaluation_mode: ``FAST`` (default), ``EXTENDED`` or ``EXHAUSTIVE``: a
            :class:`PruningEvaluationMode` or its name in any case.
        num_probe_points: probe windows in FAST and EXTENDED (>= 1, default 3);
            must be left out with EXHAUSTIVE.
        protected_fraction: the first ``ceil(protected_fraction * n)`` of the
            ``n`` candidates are always kept (0..1, default 0.1).
    """

    pruner: PrunerField = None
    evaluation_mode: Annotated[
        PruningEvaluationMode, BeforeValidator(mode_of(PruningEvaluationMode))
    ] = PruningEvaluationMode.FAST
    num_probe_points: StrictInt | None = None
    protected_fraction: float = DEFAULT_PROTECTED_FRACTION

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        fraction = self.protected_fraction
        if not math.isfinite(fraction) or not 0 <= fraction <= 1:
            raise InvalidArgumentError("protected_fraction", f"must be in [0, 1], got {fraction}")
        probes = self.num_probe_points
        if probes is None:
            return
        if self.evaluation_mode is PruningEvaluationMode.EXHAUSTIVE:
            raise InvalidArgumentError(
                "num_probe_points", "leave it out with EXHAUSTIVE (every candidate is asked)"
            )
        if isinstance(probes, bool) or probes < 1:
            raise InvalidArgumentError("num_probe_points", f"must be >= 1, got {probes}")

    @property
    def prunes(self) -> bool:
        return True

    @property
    def probe_points(self) -> int:
        """The number of probe windows used (the default when unset)."""
        return DEFAULT_NUM_PROBE_POINTS if self.num_probe_points is None else self.num_probe_points
