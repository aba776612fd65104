"""Stage 7: prompt text for a ranked list of results."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.core.render import render_result
from graphmem.models import SearchResult, SearchResultFormatConfig

__all__ = ["render_results"]


def render_results(
    results: Sequence[SearchResult], config: SearchResultFormatConfig | None = None
) -> list[str]:
    """The text of each result (as :meth:`SearchResult.format_content`), in rank order."""
    chosen = config or SearchResultFormatConfig()
    return [render_result(result, chosen) for result in results]
