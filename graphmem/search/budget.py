"""Stage 6: token budgets on each result's formatted content.

No budget can be configured yet, so the stage is the identity; the budget issue
fills it in, measuring each result by :func:`graphmem.search.render.render_results`.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.models import SearchResult

__all__ = ["BudgetConfig", "apply_budget"]


@dataclass(frozen=True)
class BudgetConfig:
    """Token budgets (nothing to configure yet)."""


def apply_budget(results: list[SearchResult], config: BudgetConfig) -> list[SearchResult]:
    """The results that fit the configured budgets, in rank order; all without one."""
    return results
