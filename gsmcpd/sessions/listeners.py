"""
Who hears of changes, in either era: L{ChangeNotices} is the one place the
commits of work sessions are announced; a 2025 client session listens
through L{SessionListeners}, a 2026 C{subscriptions/listen} stream through
its own L{Subscriber} (L{gsmcpd.protocol.eras.modern.listen}).
"""

from collections.abc import Callable, Iterable
from typing import Any

import attr

from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.interfaces import JsonObject

Deliver = Callable[[str, JsonObject], None]
"""How a subscriber is told: called with a notice's method and params."""

LIST_CHANGES = {
    "toolsListChanged": "notifications/tools/list_changed",
    "promptsListChanged": "notifications/prompts/list_changed",
    "resourcesListChanged": "notifications/resources/list_changed",
}
"""Each list a client may follow, and the notice that says it changed."""
RESOURCE_UPDATED = "notifications/resources/updated"


@attr.s(frozen=True, auto_attribs=True)
class Filter:
    """What one listener wants to hear of."""

    toolsListChanged: bool = False
    promptsListChanged: bool = False
    resourcesListChanged: bool = False
    resourceSubscriptions: frozenset = frozenset()

    def wire(self) -> JsonObject:
        shape: JsonObject = {name: True for name in LIST_CHANGES
                             if getattr(self, name)}
        if self.resourceSubscriptions:
            shape["resourceSubscriptions"] = sorted(self.resourceSubscriptions)
        return shape

    def granted(self, offered: "Filter") -> "Filter":
        """Less what C{offered} lacks (any URIs there mean all)."""
        return attr.evolve(
            self, resourceSubscriptions=self.resourceSubscriptions
            if offered.resourceSubscriptions else frozenset(),
            **{name: getattr(self, name) and getattr(offered, name)
               for name in LIST_CHANGES})


@attr.s(auto_attribs=True, eq=False)
class Subscriber:
    """
    @ivar subscriptionId: the 2026 listen request's id, which tags its
        notices, or L{None} (2025).
    """

    _wants: Callable[[], Filter]
    deliver: Deliver
    subscriptionId: object = None

    @property
    def filter(self) -> Filter:
        """Asked at each change: a 2025 session's change while it listens."""
        return self._wants()

    def tell(self, method: str, params: JsonObject) -> None:
        self.deliver(method, params)


class ChangeNotices:
    """The daemon's listeners, and the changes announced to them."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def __len__(self) -> int:
        return len(self._subscribers)

    def listenStreams(self) -> int:
        """How many 2026 C{subscriptions/listen} streams are open."""
        return sum(1 for subscriber in self._subscribers
                   if subscriber.subscriptionId is not None)

    def add(self, subscriber: Subscriber) -> None:
        self._subscribers.append(subscriber)

    def remove(self, subscriber: Subscriber) -> None:
        if subscriber in self._subscribers:
            self._subscribers.remove(subscriber)

    def resourcesUpdated(self, uris: Iterable[str]) -> None:
        """Each URI's subscribers hear of it once, whatever else changed."""
        for uri in sorted(set(uris)):
            for subscriber in list(self._subscribers):
                if uri in subscriber.filter.resourceSubscriptions:
                    subscriber.tell(RESOURCE_UPDATED, {"uri": uri})


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
