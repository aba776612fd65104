"""Exact top-k by cosine distance, ties broken by record id (pure numpy)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["TIE_DECIMALS", "cosine_distances", "distances_from_dots", "row_norms", "top_k"]

TIE_DECIMALS = 12


def cosine_distances(
    matrix: npt.NDArray[np.floating], query: npt.NDArray[np.floating]
) -> npt.NDArray[np.float64]:
    """``1 - cos(row, query)`` for every row, in float64; a zero vector is at distance 1.

    >>> cosine_distances(np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]), np.array([1.0, 0.0]))
    array([0., 1., 1.])
    """
    m = np.asarray(matrix, dtype=np.float64)
    q = np.asarray(query, dtype=np.float64).reshape(-1)
    if m.size == 0:
        return np.zeros(m.shape[0], dtype=np.float64)
    return distances_from_dots(m @ q, row_norms(m), float(np.linalg.norm(q)))


def row_norms(matrix: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
    """The float64 length of every row (the norms :func:`cosine_distances` uses).

    >>> row_norms(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32))
    array([5., 0.])
    """
    # np.linalg.norm(axis=1)'s own arithmetic (the square root of add.reduce over the
    # squares), bit for bit, with one float64 copy instead of three (measured: the
    # load of the vector copy, 100k rows, spent most of its time here).
    squares = np.array(matrix, dtype=np.float64)
    np.multiply(squares, squares, out=squares)
    return np.asarray(np.sqrt(np.add.reduce(squares, axis=1)), np.float64)


def distances_from_dots(
    dots: npt.NDArray[np.float64], norms: npt.NDArray[np.float64], query_norm: float
) -> npt.NDArray[np.float64]:
    """``1 - cos`` from float64 dot products with the query and the rows' norms.

    >>> distances_from_dots(np.array([2.0, 0.0]), np.array([2.0, 0.0]), 1.0)
    array([0., 1.])
    """
    norms = norms * query_norm
    with np.errstate(invalid="ignore", divide="ignore"):
        sims = np.where(norms > 0, dots / np.where(norms > 0, norms, 1.0), 0.0)
    return np.asarray(1.0 - np.clip(sims, -1.0, 1.0), dtype=np.float64)


def top_k(
    ids: Sequence[str], distances: npt.NDArray[np.float64], k: int
) -> list[tuple[str, float]]:
    """The ``k`` nearest ``(id, distance)`` pairs, by distance then id.

    Distances are rounded to 12 decimals first, so that texts at mathematically
    equal distance, which floating point may place 1e-16 apart differently on
    different backends, tie and are ordered by id everywhere.

    >>> top_k(["b", "a", "c"], np.array([0.5, 0.5, 0.1]), 2)
    [('c', 0.1), ('a', 0.5)]
    """
    n = len(ids)
    if k <= 0 or n == 0:
        return []
    rounded = np.asarray(np.round(np.asarray(distances, np.float64), TIE_DECIMALS), np.float64)
    if k < n:
        # Everything at or below the k-th smallest distance, ties included: O(n).
        kth = np.partition(rounded, k - 1)[k - 1]
        chosen = np.flatnonzero(rounded <= kth)
    else:
        chosen = np.arange(n)
    ranked = sorted((float(rounded[i]), ids[int(i)]) for i in chosen)
    return [(record_id, distance) for distance, record_id in ranked[:k]]
