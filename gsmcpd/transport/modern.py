"""
The 2026-07-28 era on C{POST /mcp}: its headers handed to the protocol
layer, and C{subscriptions/listen}'s event stream.
"""

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.web.iweb import IRequest
from twisted.web.server import Request

from gsmcpd.protocol.endpoint import Headers
from gsmcpd.protocol.eras.modern.adapter import ModernEra
from gsmcpd.protocol.eras.modern.listen import Filter, Listener
from gsmcpd.protocol.jsonrpc import JsonObject
from gsmcpd.sessions.listeners import ChangeNotices
from gsmcpd.sessions.outbox import Outbox
from gsmcpd.transport.gates import VERSION_HEADER
from gsmcpd.transport.sse import EventStream


def headerValues(request: IRequest) -> Headers:
    """
    The request's headers by lowercased name, each a list of its values,
    but for C{MCP-Protocol-Version}, which the gates read.
    """
    headers = {name.decode("latin-1").lower(): [v.decode("latin-1")
                                                for v in values]
               for name, values in request.requestHeaders.getAllRawHeaders()}
    headers.pop(VERSION_HEADER.decode("ascii"), None)
    return headers


class ModernPost:
    """
    The 2026 era's HTTP beyond a JSON answer: a C{subscriptions/listen}
    response held open as an event stream.
    """

    def __init__(self, era: ModernEra, notices: ChangeNotices,
                 clock: IReactorTime) -> None:
        """
        @param era: the L{gsmcpd.protocol.eras.modern.adapter.ModernEra}.
        @param notices: the L{gsmcpd.sessions.listeners.ChangeNotices}
            listeners are added to.
        """
        self.era = era
        self.notices = notices
        self.clock = clock

    def listen(self, request: Request, wants: Filter,
               messageId: object) -> "Deferred[None]":
        """
        Hold the response open as the listener's stream: acknowledged
        first, then every change C{wants} names, until the client goes.
        """
        outbox = Outbox(f"listener {messageId!r}")
        stream = EventStream(request, self.clock, outbox)

        def deliver(method: str, params: JsonObject) -> None:
            outbox.put({"jsonrpc": "2.0", "method": method, "params": params})
            stream.flush()

        subscriber = Listener(wants, deliver, messageId)
        self.notices.add(subscriber)
        subscriber.acknowledge()
        stream.done.addBoth(lambda _: self.notices.remove(subscriber))
        return stream.done
