"""Test machinery shipped with graphmem, so that every store inherits one suite.

Needs the ``graphmem[testing]`` extra (networkx, hypothesis):

- :mod:`graphmem.testing.model`: the networkx reference model of docs/semantics.md sections 1-3;
- :mod:`graphmem.testing.shape`: exact comparison of search trees with the model;
- :mod:`graphmem.testing.strategies`: hypothesis strategies and random graphs;
- :mod:`graphmem.testing.machine`: the state machine comparing a store with the model;
- :mod:`graphmem.testing.conformance`: the example-based suite every store must pass.

Submodules are imported on demand; importing this package loads nothing else.
"""

__all__: list[str] = []
