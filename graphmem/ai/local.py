"""The default embedder: WordLlama ``l2_supercat``, run in-process from files in its wheel.

The ``wordllama`` package ships the ``l2_supercat`` weights (``weights/``) and
tokenizer (``tokenizers/``) inside its wheel, so nothing is downloaded at run
time. Its 0.4.0 loader looks for a shipped tokenizer under a misspelled folder
and would then try Hugging Face; pointing ``cache_dir`` at the package's own
folder makes the loader find both files there, and ``disable_download=True``
turns any miss into an error instead of a network call. graphmem also checks
that both files exist before loading, so a broken install fails clearly.

The vectors are mean-pooled token embeddings, L2-normalised by graphmem (an
empty text, with no token, gets the zero vector). Same weights and same arithmetic
give the same vectors on every run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.errors import InvalidArgumentError, ModelError

__all__ = ["LOCAL_DIMENSIONS", "LOCAL_MODEL", "LocalEmbedder"]

LOCAL_MODEL = "local/wordllama-l2-supercat"
LOCAL_DIMENSIONS = (64, 128, 256)
"""Matryoshka truncations of the shipped 256-dimensional weights."""

_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
_BATCH = 512

_loaded: dict[int, Any] = {}
_load_lock = threading.Lock()


def _import_wordllama() -> Any:
    """Import wordllama without keeping the root logging setup its import installs."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise ModelError(
            "the default embedder needs the wordllama package: pip install wordllama",
            status=None,
            provider_message=str(exc),
        ) from exc
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    return wordllama


def _model(dimension: int) -> Any:
    """The loaded model, once per process and dimension."""
    with _load_lock:
        if dimension not in _loaded:
            wordllama = _import_wordllama()
            package = Path(wordllama.__file__).parent
            missing = [name for name in (_WEIGHTS, _TOKENIZER) if not (package / name).is_file()]
            if missing:
                raise ModelError(
                    f"the installed wordllama {wordllama.__version__} lacks {', '.join(missing)};"
                    " graphmem needs a wordllama wheel that ships the l2_supercat files",
                    status=None,
                    provider_message="missing model files",
                )
            _loaded[dimension] = wordllama.WordLlama.load(
                config="l2_supercat",
                cache_dir=package,
                dim=256,
                trunc_dim=None if dimension == 256 else dimension,
                disable_download=True,
            )
        return _loaded[dimension]


class LocalEmbedder:
    """WordLlama ``l2_supercat`` embeddings computed in this process, offline.

    The model loads on the first :meth:`embed` (about 0.3 s) and is shared by
    every instance of the same dimension in the process.

    Args:
        dimension: 256 (default), or a truncation to 128 or 64.

    Attributes:
        name: ``"local/wordllama-l2-supercat-<dimension>"``, the identity a store records.
        dimension: the vector length.

    >>> e = LocalEmbedder()
    >>> e.name, e.embed(["Sourdough pizza", "Rain in April"]).shape
    ('local/wordllama-l2-supercat-256', (2, 256))
    """

    def __init__(self, dimension: int = 256) -> None:
        if isinstance(dimension, bool) or dimension not in LOCAL_DIMENSIONS:
            raise InvalidArgumentError(
                "embedding_dimension",
                f"the local model offers {LOCAL_DIMENSIONS}, got {dimension!r}",
            )
        self.dimension = dimension
        self.name = f"{LOCAL_MODEL}-{dimension}"

    def __repr__(self) -> str:
        return f"LocalEmbedder(dimension={self.dimension})"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """L2-normalised float32 vectors, shape ``[len(texts), dimension]``.

        Raises:
            InvalidArgumentError: ``texts`` is not a sequence of strings.
        """
        if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
            raise InvalidArgumentError("texts", "must be a sequence of strings")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        raw = _model(self.dimension).embed(list(texts), norm=False, batch_size=_BATCH)
        vectors = np.asarray(raw, dtype=np.float32).reshape(len(texts), self.dimension)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: npt.NDArray[np.float32] = np.divide(
            vectors, norms, out=np.zeros_like(vectors), where=norms > 0
        )
        return unit
