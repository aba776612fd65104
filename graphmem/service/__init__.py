"""The memory service: a REST/JSON server over a graphmem store (``graphmem serve``).

Serving needs the ``service`` extra (``pip install 'graphmem[service]'``); the
API keys (``graphmem.service.keys``, ``graphmem keys``) and ``ServiceConfig`` do
not, so ``create_app`` is imported only when asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphmem.service.config import ServiceConfig

if TYPE_CHECKING:
    from graphmem.service.app import create_app

__all__ = ["ServiceConfig", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from graphmem.service.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
