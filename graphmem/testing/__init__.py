"""Test machinery shipped with graphmem, so that every store inherits one suite.

Needs the ``graphmem[testing]`` extra (networkx, hypothesis):

- :mod:`graphmem.testing.model`: the networkx reference model of docs/semantics.md sections 1-3;
- :mod:`graphmem.testing.shape`: exact comparison of search trees with the model;
- :mod:`graphmem.testing.strategies`: hypothesis strategies and random graphs;
- :mod:`graphmem.testing.machine`: the state machine comparing a store with the model;
- :mod:`graphmem.testing.conformance`: the example-based suite every store must pass,
  through :class:`graphmem.GraphMemory`;
- :mod:`graphmem.testing.conformance_store`: the suite that drives a store's protocol directly;
- :mod:`graphmem.testing.memory_store`: a store over the reference model (fast, in memory);
- :mod:`graphmem.testing.model_server`: :class:`ModelServer`, a local HTTP server
  speaking the embedding, chat and rerank APIs (standard library only, so it is
  imported here; the other submodules are imported on demand).
"""

from graphmem.testing.model_server import Fault, ModelServer, RecordedRequest

__all__ = ["Fault", "ModelServer", "RecordedRequest"]
