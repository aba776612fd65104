"""Stage 6: token budgets on each result's formatted content.

Each result is measured by the token counter on its text as
:meth:`SearchResult.format_content` renders it with the default format
(linked records included); :func:`graphmem.core.budget.fitting_count` decides
how many of the ranked results are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphmem.core.budget import estimate_tokens, fitting_count
from graphmem.errors import InvalidArgumentError
from graphmem.models import SearchResult
from graphmem.search.render import render_results

__all__ = ["BudgetConfig", "TokenCounter", "apply_budget", "fitting_texts", "resolve_budget"]

TokenCounter = Callable[[str], int]
"""``f(text) -> tokens``: how a budget measures a formatted result."""


@dataclass(frozen=True)
class BudgetConfig:
    """The budgets in force (None: off) and the counter that measures results."""

    token_budget: int | None = None
    soft_token_budget: int | None = None
    counter: TokenCounter = estimate_tokens


def resolve_budget(argument: str, configured: int | None, per_call: object) -> int | None:
    """The budget a search uses: the configured one unless the call gives an int,
    which overrides it when positive and turns it off when not.

    >>> resolve_budget("token_budget", 900, None), resolve_budget("token_budget", 900, 50)
    (900, 50)
    >>> resolve_budget("token_budget", 900, 0) is None
    True
    """
    if per_call is None:
        return configured
    if isinstance(per_call, bool) or not isinstance(per_call, int):
        raise InvalidArgumentError(argument, f"must be an int or None, got {per_call!r}")
    return per_call if per_call > 0 else None


def _count(counter: TokenCounter, text: str) -> int:
    size = counter(text)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise InvalidArgumentError(
            "token_counter", f"must return a non-negative int, returned {size!r}"
        )
    return size


def fitting_texts(texts: list[str], config: BudgetConfig) -> int:
    """How many of the first ``texts`` (ranked results' texts) fit the budgets."""
    if config.token_budget is None and config.soft_token_budget is None:
        return len(texts)
    sizes = [_count(config.counter, text) for text in texts]
    return fitting_count(sizes, config.soft_token_budget, config.token_budget)


def apply_budget(results: list[SearchResult], config: BudgetConfig) -> list[SearchResult]:
    """The results that fit the configured budgets, in rank order; all without one."""
    if config.token_budget is None and config.soft_token_budget is None:
        return results
    return results[: fitting_texts(render_results(results), config)]
