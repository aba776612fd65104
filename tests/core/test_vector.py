"""graphmem.core.vector: exact cosine distances and top-k with ties by id."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.core.vector import cosine_distances, row_norms, top_k


def test_cosine_distances_basic() -> None:
    matrix = np.array([[1.0, 0.0], [0.0, 3.0], [-2.0, 0.0], [1.0, 1.0]])
    result = cosine_distances(matrix, np.array([2.0, 0.0]))
    assert result == pytest.approx([0.0, 1.0, 2.0, 1.0 - 1.0 / np.sqrt(2.0)])


def test_cosine_distances_scale_invariant() -> None:
    matrix = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    result = cosine_distances(matrix, np.array([3.0, 2.0, 1.0]))
    assert result[0] == pytest.approx(result[1])


def test_cosine_distances_zero_vector_at_one() -> None:
    assert cosine_distances(np.zeros((2, 3)), np.array([1.0, 0.0, 0.0])).tolist() == [1.0, 1.0]


def test_cosine_distances_zero_query_at_one() -> None:
    assert cosine_distances(np.eye(2), np.zeros(2)).tolist() == [1.0, 1.0]


def test_cosine_distances_float64_from_float32() -> None:
    result = cosine_distances(np.eye(3, dtype=np.float32), np.ones(3, dtype=np.float32))
    assert result.dtype == np.float64


def test_cosine_distances_empty_matrix() -> None:
    assert cosine_distances(np.zeros((0, 4)), np.ones(4)).shape == (0,)


def test_cosine_distances_within_zero_and_two() -> None:
    rng = np.random.default_rng(0)
    result = cosine_distances(rng.normal(size=(50, 8)), rng.normal(size=8))
    assert np.all(result >= 0.0) and np.all(result <= 2.0)


def test_top_k_orders_by_distance() -> None:
    assert top_k(["a", "b", "c"], np.array([0.3, 0.1, 0.2]), 3) == [
        ("b", 0.1),
        ("c", 0.2),
        ("a", 0.3),
    ]


def test_top_k_ties_by_id() -> None:
    assert [i for i, _ in top_k(["d", "b", "c", "a"], np.array([0.5, 0.5, 0.5, 0.5]), 4)] == [
        "a",
        "b",
        "c",
        "d",
    ]


def test_top_k_ties_at_the_cut_keep_smallest_ids() -> None:
    ids = ["z", "y", "x", "w", "v"]
    distances = np.array([0.5, 0.5, 0.1, 0.5, 0.9])
    assert top_k(ids, distances, 3) == [("x", 0.1), ("w", 0.5), ("y", 0.5)]


def test_top_k_k_larger_than_n() -> None:
    assert len(top_k(["a", "b"], np.array([0.2, 0.1]), 10)) == 2


def test_top_k_zero_and_negative() -> None:
    assert top_k(["a"], np.array([0.1]), 0) == []
    assert top_k(["a"], np.array([0.1]), -1) == []


def test_top_k_empty() -> None:
    assert top_k([], np.zeros(0), 3) == []


def test_top_k_matches_full_sort() -> None:
    rng = np.random.default_rng(7)
    ids = [f"id{i:04d}" for i in range(500)]
    distances = np.round(rng.random(500), 2)  # many ties
    expected = sorted(zip(distances.tolist(), ids, strict=True))[:37]
    assert top_k(ids, distances, 37) == [(i, d) for d, i in expected]


# 3v and v are at the same cosine distance from q, but floating point puts 3v
# about 1e-16 further away: the rounding before the tie rule must make them tie.
V = np.array([3.0, 6.0, 7.0, 4.0])
Q = np.array([5.0, 9.0, 8.0, 9.0])


def test_top_k_float_noise_ties_by_id() -> None:
    distances = cosine_distances(np.array([3 * V, V]), Q)
    assert distances[0] > distances[1]  # the noise this test is about
    assert [i for i, _ in top_k(["a", "b"], distances, 2)] == ["a", "b"]
    assert top_k(["a", "b"], distances, 1)[0][0] == "a"


def test_top_k_float_noise_equal_distances_returned() -> None:
    (_, first), (_, second) = top_k(["a", "b"], cosine_distances(np.array([3 * V, V]), Q), 2)
    assert first == second


@settings(max_examples=80, deadline=None)
@given(
    rows=st.integers(0, 40),
    cols=st.integers(0, 40),
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from([np.float32, np.float64]),
    scale=st.sampled_from([1e-30, 1e-3, 1.0, 1e3, 1e30]),
)
def test_row_norms_equal_numpy_norm_bit_for_bit(
    rows: int, cols: int, seed: int, dtype: type, scale: float
) -> None:
    matrix = (np.random.default_rng(seed).standard_normal((rows, cols)) * scale).astype(dtype)
    matrix[: rows // 4] = 0.0  # zero vectors too
    expected = np.linalg.norm(matrix.astype(np.float64), axis=1)
    before = matrix.copy()
    assert row_norms(matrix).tobytes() == expected.tobytes()
    assert np.array_equal(matrix, before)  # the input is left as it was
