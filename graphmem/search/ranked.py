"""What flows between the search stages: the request and ranked hits."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from graphmem.core.validation import SearchFilters

__all__ = ["Hit", "SearchRequest"]

Hit = tuple[str, float]
"""A ranked direct result: ``(record_id, cosine distance)``, best first in a list."""


@dataclass(frozen=True)
class SearchRequest:
    """The validated arguments of one search."""

    filters: SearchFilters
    vector: npt.NDArray[np.float32]
    max_results: int
    num_hops: int
    max_linked_results: int | None
    include_invalid: bool
