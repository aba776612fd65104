"""The ``graphmem`` command line: every verb is one or two library calls.

``graphmem.cli:main`` is the console entry point; ``main(argv)`` returns the
exit status: 0 on success, 1 when graphmem refuses or fails (one line on
standard error, no traceback; this includes option values the library refuses),
2 on a usage error (the command line could not be read: an unknown option, a
missing argument, a value of the wrong form), 130 when interrupted.
"""

from graphmem.cli.app import cli, main

__all__ = ["cli", "main"]
