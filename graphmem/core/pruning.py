"""Which ranked candidates an LLM pruner keeps: the three evaluation modes, pure.

The caller supplies ``ask``: given groups of candidate positions (one group per
LLM call, asked concurrently), it returns, per group, whether each position is
relevant. Positions are 0-based ranks in the candidate list.

* The first ``ceil(protected_fraction * n)`` candidates are always kept.
* ``FAST`` and ``EXTENDED`` probe *windows* of two consecutive candidates,
  ``num_probe_points`` of them spread evenly over the unprotected part
  (fewer when they would coincide; one window of the remaining one or two
  candidates when that is all there is). Overlapping windows share answers:
  a candidate is asked about once.
* ``FAST`` asks the lowest window first (nearest the top of the ranking); then,
  round after round, it asks at once the lower half of the windows that can
  still move the cutoff: those between the highest all-relevant window ``H``
  (below any irrelevant one) and the lowest window holding an irrelevant
  document ``L``. It stops when none is left. Kept: the protected prefix,
  everything through ``H``, and every candidate a completed probe found
  relevant. At most one call per window: ``<= num_probe_points`` calls.
* ``EXTENDED`` asks every window at once; ``H`` is the highest all-relevant
  window even past an irrelevant one. Kept as in FAST, so every relevant
  evaluated candidate is kept. ``<= num_probe_points`` calls.
* ``EXHAUSTIVE`` asks about every candidate, protected ones too, one call each
  (``n`` calls). Kept: the protected prefix plus every relevant candidate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Ask", "PruneOutcome", "call_bound", "plan_windows", "protected_count", "prune_ranks"]

Ask = Callable[[Sequence[Sequence[int]]], Sequence[dict[int, bool]]]
"""Groups of positions -> one ``{position: relevant}`` answer per group."""


@dataclass(frozen=True)
class PruneOutcome:
    """The kept positions (ascending) and the LLM calls made."""

    kept: tuple[int, ...]
    calls: int


def protected_count(n: int, fraction: float) -> int:
    """``ceil(fraction * n)``, robust to float noise (``0.1 * 30`` is 3, not 4).

    >>> protected_count(30, 0.1), protected_count(5, 0.1), protected_count(5, 0.0)
    (3, 1, 0)
    """
    return min(n, max(0, math.ceil(round(fraction * n, 9))))


def plan_windows(protected: int, n: int, probes: int) -> list[tuple[int, ...]]:
    """The probe windows over positions ``protected..n-1``, lowest first.

    >>> plan_windows(1, 10, 3)
    [(1, 2), (5, 6), (8, 9)]
    >>> plan_windows(0, 4, 5)
    [(0, 1), (1, 2), (2, 3)]
    >>> plan_windows(3, 4, 3)
    [(3,)]
    """
    free = n - protected
    if free <= 0:
        return []
    if free <= 2:
        return [tuple(range(protected, n))]
    span = free - 2
    if probes == 1:
        starts = [protected]
    else:
        steps = probes - 1
        starts = sorted({protected + (2 * j * span + steps) // (2 * steps) for j in range(probes)})
    return [(s, s + 1) for s in starts]


def call_bound(mode: str, n: int, protected: int, probes: int) -> int:
    """The most LLM calls a mode makes for ``n`` candidates.

    >>> call_bound("fast", 10, 1, 3), call_bound("exhaustive", 10, 1, 3)
    (3, 10)
    """
    if mode == "exhaustive":
        return n
    return len(plan_windows(protected, n, probes))


def _ask_windows(
    ask: Ask, windows: list[tuple[int, ...]], chosen: list[int], answers: dict[int, bool]
) -> int:
    """Ask about the unanswered positions of ``chosen`` windows; returns the calls made."""
    groups: list[list[int]] = []
    claimed: set[int] = set()
    for w in chosen:
        group = [p for p in windows[w] if p not in answers and p not in claimed]
        claimed.update(group)
        if group:
            groups.append(group)
    if groups:
        for reply in ask(groups):
            answers.update(reply)
    return len(groups)


def _bounds(windows: list[tuple[int, ...]], asked: set[int], answers: dict[int, bool]) -> int:
    """``L``: the lowest asked window holding an irrelevant candidate (or len)."""
    bad = [w for w in asked if not all(answers[p] for p in windows[w])]
    return min(bad, default=len(windows))


def _highest_good(
    windows: list[tuple[int, ...]], asked: set[int], answers: dict[int, bool], below: int
) -> int:
    good = [w for w in asked if w < below and all(answers[p] for p in windows[w])]
    return max(good, default=-1)


def _kept(
    protected: int, windows: list[tuple[int, ...]], high: int, answers: dict[int, bool]
) -> tuple[int, ...]:
    through = windows[high][-1] + 1 if high >= 0 else protected
    kept = set(range(through)) | {p for p, relevant in answers.items() if relevant}
    return tuple(sorted(kept))


def _fast(ask: Ask, protected: int, windows: list[tuple[int, ...]]) -> PruneOutcome:
    answers: dict[int, bool] = {}
    asked: set[int] = set()
    calls = 0
    high, low = -1, len(windows)
    while True:
        open_windows = [w for w in range(high + 1, low) if w not in asked]
        if not open_windows:
            break
        batch = open_windows[:1] if not asked else open_windows[: (len(open_windows) + 1) // 2]
        calls += _ask_windows(ask, windows, batch, answers)
        asked.update(batch)
        low = _bounds(windows, asked, answers)
        high = _highest_good(windows, asked, answers, low)
    return PruneOutcome(_kept(protected, windows, high, answers), calls)


def _extended(ask: Ask, protected: int, windows: list[tuple[int, ...]]) -> PruneOutcome:
    answers: dict[int, bool] = {}
    every = list(range(len(windows)))
    calls = _ask_windows(ask, windows, every, answers)
    high = _highest_good(windows, set(every), answers, len(windows))
    return PruneOutcome(_kept(protected, windows, high, answers), calls)


def _exhaustive(ask: Ask, n: int, protected: int) -> PruneOutcome:
    answers: dict[int, bool] = {}
    if n:
        for reply in ask([[p] for p in range(n)]):
            answers.update(reply)
    kept = set(range(protected)) | {p for p, relevant in answers.items() if relevant}
    return PruneOutcome(tuple(sorted(kept)), n)


def prune_ranks(
    ask: Ask, n: int, mode: str, protected_fraction: float, probes: int
) -> PruneOutcome:
    """The positions kept out of ``n`` ranked candidates (module docstring).

    >>> relevant = {0: True, 1: True, 2: True, 3: False, 4: True, 5: False}
    >>> oracle = lambda groups: [{p: relevant[p] for p in g} for g in groups]
    >>> prune_ranks(oracle, 6, "exhaustive", 0.0, 1)
    PruneOutcome(kept=(0, 1, 2, 4), calls=6)
    >>> prune_ranks(oracle, 6, "fast", 0.0, 3).kept
    (0, 1, 2)
    >>> prune_ranks(oracle, 6, "extended", 0.0, 3).kept
    (0, 1, 2, 4)
    """
    protected = protected_count(n, protected_fraction)
    if mode == "exhaustive":
        return _exhaustive(ask, n, protected)
    windows = plan_windows(protected, n, probes)
    if mode == "extended":
        return _extended(ask, protected, windows)
    return _fast(ask, protected, windows)
