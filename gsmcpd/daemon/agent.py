"""
HAProxy's agent check: the daemon says how much room it has, so a load
balancer sends a new session to a daemon that can open it.

HAProxy connects to C{--agent-port} every C{agent-inter}, reads one line
and closes (its C{agent-check}): C{up ready 60%} sets the server's weight
to 60 % of the weight configured, C{up drain} takes it out of the choice
for new sessions while requests of the sessions it holds still reach it
(through the stick table), and C{down} marks it down.  The weight is the
share of session slots a new session could have (free, or held by an idle
read session that gives its slot up); a full or draining daemon answers
C{drain}, one whose stone cannot be reached C{down}.

A daemon whose audit trail cannot be written answers C{down} too, not
C{drain}: it runs no call at all, so the clients whose sessions it holds
are better sent elsewhere (where their handle is unknown and they open a
new session) than kept, through the stick table, on a daemon that refuses
everything they ask until an operator frees the disk.
"""

from collections.abc import Callable

from twisted.internet.interfaces import ITransport
from twisted.internet.protocol import Factory, Protocol

from gsmcpd.daemon.admin import Health


class Capacity:
    """
    What the agent says, from the daemon's health and its pool's slots.

    @param health: the L{gsmcpd.daemon.admin.Health} C{/healthz} reads.
    @param used: answers the slots a new session could not have.
    @param limit: answers the cap (C{--max-sessions}), or L{None} for none.
    """

    def __init__(self, health: Health, used: Callable[[], int],
                 limit: Callable[[], int | None]) -> None:
        self._health = health
        self._used = used
        self._limit = limit

    def line(self) -> bytes:
        """
        The agent protocol's answer, as one line of ASCII.
        """
        problem = self._health.problem()
        if problem is not None:
            # A stopping daemon still serves the sessions it holds.
            return b"drain\n" if problem[0] == "stopping" else b"down\n"
        limit = self._limit()
        if limit is None:
            return b"up ready 100%\n"
        free = max(limit - self._used(), 0)
        if free == 0:
            return b"up drain\n"
        # Never 0%: in HAProxy a weight of zero is a drain.
        percent = max(1, 100 * free // limit)
        return f"up ready {percent}%\n".encode("ascii")


class AgentAnswer(Protocol):
    """
    One agent check: the line, then the connection closes.
    """

    factory: "AgentFactory"
    transport: ITransport

    def connectionMade(self) -> None:
        self.transport.write(self.factory.capacity.line())
        self.transport.loseConnection()


class AgentFactory(Factory[AgentAnswer]):
    protocol = AgentAnswer
    noisy = False

    def __init__(self, capacity: Capacity) -> None:
        self.capacity = capacity
