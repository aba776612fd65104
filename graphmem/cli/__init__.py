"""The ``graphmem`` command line: every verb is one or two library calls.

``graphmem.cli:main`` is the console entry point; ``main(argv)`` returns the
exit status: 0 on success, 1 on a user error (one line on standard error, no
traceback), 2 on a usage error, 130 when interrupted.
"""

from graphmem.cli.app import cli, main

__all__ = ["cli", "main"]
