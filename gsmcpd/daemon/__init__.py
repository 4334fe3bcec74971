"""
The daemon: options (each setting declared once), the service tree, the
frozen heap and the twistd glue.  The top layer: it may import any other.
"""

from typing import Any

Reactor = Any
"""The running reactor: it provides C{IReactorCore}, C{IReactorTime},
C{IReactorThreads}, C{IReactorFromThreads} and the TCP and SSL ones, which
no one interface says together."""
