"""The memory service: a REST/JSON server over a graphmem store (``graphmem serve``).

Needs the ``service`` extra (``pip install 'graphmem[service]'``).
"""

from graphmem.service.app import create_app
from graphmem.service.config import ServiceConfig

__all__ = ["ServiceConfig", "create_app"]
