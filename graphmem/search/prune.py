"""Stage 4: prune irrelevant results, keeping a protected prefix.

The pruner LLM does not exist yet, so the stage is the identity.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.search.ranked import Hit

__all__ = ["PruneConfig", "prune"]


@dataclass(frozen=True)
class PruneConfig:
    """How results are pruned (nothing to configure yet)."""


def prune(hits: list[Hit], config: PruneConfig) -> list[Hit]:
    """The hits the configured pruner keeps, in their order; all of them without one.

    >>> prune([("a", 0.1)], PruneConfig())
    [('a', 0.1)]
    """
    return hits
