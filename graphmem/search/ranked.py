"""What flows between the search stages: the request and ranked hits."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from graphmem.core.validation import SearchFilters
from graphmem.search.config import HybridConfig

__all__ = ["Hit", "SearchRequest"]

Hit = tuple[str, float | None]
"""A ranked direct result: ``(record_id, cosine distance)``, best first in a list
(the distance is None for a keyword hit that the vector ranking does not hold)."""


@dataclass(frozen=True)
class SearchRequest:
    """The validated arguments of one search."""

    filters: SearchFilters
    vector: npt.NDArray[np.float32]
    max_results: int
    num_hops: int
    max_linked_results: int | None
    include_invalid: bool
    strategy: str = "vector"
    text: str = ""
    """The query text (keyword and hybrid retrieval)."""
    hybrid: HybridConfig = field(default_factory=HybridConfig)
