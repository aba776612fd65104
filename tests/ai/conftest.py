"""A fresh ModelServer per test; adapters talk to it over real sockets."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graphmem.testing import ModelServer


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer(dimension=16) as running:
        yield running
