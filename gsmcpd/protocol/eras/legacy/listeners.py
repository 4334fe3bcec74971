"""
2025 sessions as listeners to change notices (L{gsmcpd.protocol.notices}),
each told on its event stream of the resources it subscribed to.
"""

from typing import Any

from gsmcpd.protocol.jsonrpc import JsonObject
from gsmcpd.protocol.notices import ChangeNotices, Filter, Subscriber
from gsmcpd.sessions.client import ClientSession


class SessionListeners:
    """The 2025 client sessions listening to the daemon's L{ChangeNotices}."""

    def __init__(self, notices: ChangeNotices):
        self._notices = notices
        self._subscribers: dict[str, Subscriber] = {}

    def add(self, session: ClientSession) -> None:
        def deliver(method: str, params: JsonObject) -> None:
            session.post({"jsonrpc": "2.0", "method": method,
                          "params": params})

        subscriber = Subscriber(lambda: Filter(resourceSubscriptions=frozenset(
            session.subscriptions)), deliver)
        self._subscribers[session.handle] = subscriber
        self._notices.add(subscriber)

    def remove(self, session: Any) -> None:
        """C{session} (anything with its handle) listens no more."""
        subscriber = self._subscribers.pop(session.handle, None)
        if subscriber is not None:
            self._notices.remove(subscriber)
