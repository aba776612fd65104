"""Token budgets: which ranked results fit, measured on their formatted text.

Results are taken whole, in rank order. A soft target keeps the result that
reaches or crosses it, then stops; a hard budget stops at the first result that
would exceed it and leaves that result out.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["estimate_tokens", "fitting_count"]


def estimate_tokens(text: str) -> int:
    """The default token counter: one token per four characters, rounded up.

    It needs no tokenizer download and is close to the average of common BPE
    tokenizers on English prose; pass ``GraphMemory(token_counter=f)`` for an
    exact count (e.g. ``lambda t: len(enc.encode(t))`` with tiktoken).

    >>> estimate_tokens(""), estimate_tokens("abcd"), estimate_tokens("abcde")
    (0, 1, 2)
    """
    return (len(text) + 3) // 4


def fitting_count(sizes: Sequence[int], soft: int | None, hard: int | None) -> int:
    """How many of the first results to keep (``None``: that budget is off).

    The seed's example: estimates 420, 300 and 250 with a soft target of 800 keep
    all three (the third crosses it); a hard budget of 900 keeps two.

    >>> fitting_count([420, 300, 250], 800, None)
    3
    >>> fitting_count([420, 300, 250], 800, 900)
    2
    >>> fitting_count([1000, 10], None, 900)
    0
    """
    total = 0
    for count, size in enumerate(sizes):
        if hard is not None and total + size > hard:
            return count
        total += size
        if soft is not None and total >= soft:
            return count + 1
    return len(sizes)
