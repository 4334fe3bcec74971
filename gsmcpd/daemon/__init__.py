"""
The daemon: options (each setting declared once), the service tree, the
frozen heap and the twistd glue.  The top layer: it may import any other.
"""

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    # Not at run time: gsmcpd.daemon.early, which runs first, stays light.
    from twisted.internet.defer import Deferred

T = TypeVar("T")

Reactor = Any
"""The running reactor: it provides C{IReactorCore}, C{IReactorTime},
C{IReactorThreads}, C{IReactorFromThreads} and the TCP and SSL ones, which
no one interface says together."""

Inline = Generator["Deferred[Any]", Any, T]
"""An C{inlineCallbacks} generator: it yields L{Deferred}s and returns a
C{T}, which the L{Deferred} it makes fires with."""
