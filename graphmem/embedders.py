"""The hashing embedder: deterministic, dependency-free vectors for tests and benchmarks.

:class:`HashingEmbedder` hashes words and character n-grams into a fixed number
of signed buckets and L2-normalises the result, so texts sharing words land
close together; it knows nothing of meaning. The user's default is the
semantic in-process model of :mod:`graphmem.ai`. Any object with an
``embed(texts)`` method works as an embedder (:class:`EmbedderProtocol`,
also importable from here as ``Embedder`` for older code).

What ``embed`` returns is checked before anything is written: exactly one finite
vector per text, all of one dimension (a numpy array or a list of lists),
otherwise :class:`graphmem.InvalidArgumentError` naming the embedder. A store
records the identity of the embedder that wrote its first vector, its *name* and
its dimension, and refuses any other with :class:`graphmem.SchemaError`. The
name is the embedder's ``name`` attribute when it is a non-empty string, else its
``model`` attribute, else its class's qualified name (``type(e).__qualname__``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from graphmem.ai.protocols import EmbedderProtocol

__all__ = ["Embedder", "EmbedderProtocol", "HashingEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)


Embedder = EmbedderProtocol
"""The embedder protocol under its former name (``graphmem.Embedder`` is now the adapter)."""


class HashingEmbedder:
    """Deterministic bag-of-features embedder (feature hashing), no download needed.

    Features are lower-cased words (weight 1) and the character trigrams of each
    word padded with spaces (weight ``ngram_weight``). Each feature adds its weight,
    with a sign, to one of ``dim`` buckets chosen by BLAKE2b, so the result is the
    same in every process and on every platform.

    Attributes:
        name: ``"hashing-<dim>"``, the identity a store records.
        dimension: the vector length (``dim``).

    >>> e = HashingEmbedder(dim=64)
    >>> v = e.embed(["Pizza with sourdough", "pizza"])
    >>> v.shape, bool(abs(float((v[0] ** 2).sum()) - 1.0) < 1e-5)
    ((2, 64), True)
    """

    def __init__(self, dim: int = 384, ngram_weight: float = 0.35) -> None:
        if dim < 8:
            raise ValueError("dim must be at least 8")
        self.dim = dim
        self.dimension = dim
        self.ngram_weight = ngram_weight

    @property
    def name(self) -> str:
        """The identity a store records (with the dimension): includes ``ngram_weight``,
        which changes every vector.

        >>> HashingEmbedder().name
        'HashingEmbedder(ngram_weight=0.35)'
        """
        return f"HashingEmbedder(ngram_weight={self.ngram_weight:g})"

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self.dim})"

    def _features(self, text: str) -> list[tuple[str, float]]:
        feats: list[tuple[str, float]] = []
        words = _WORD.findall(text.lower())
        for word in words:
            feats.append(("w:" + word, 1.0))
            padded = f" {word} "
            for i in range(len(padded) - 2):
                feats.append(("c:" + padded[i : i + 3], self.ngram_weight))
        if not feats:  # punctuation only: hash the raw characters
            feats = [("r:" + ch, 1.0) for ch in text if not ch.isspace()]
        return feats

    def _vector(self, text: str) -> npt.NDArray[np.float32]:
        vec = np.zeros(self.dim, dtype=np.float64)
        for feature, weight in self._features(text):
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            sign = 1.0 if value & 1 else -1.0
            vec[(value >> 1) % self.dim] += sign * weight
        norm = float(np.linalg.norm(vec))
        if norm > 0:
            vec /= norm
        return vec.astype(np.float32)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` (see the class doc)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])
