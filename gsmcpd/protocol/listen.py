"""
Change notices, to whoever listens, in either era.

Something changes (the tool or prompt list, a class another session
committed) and every client that asked to hear of it is
told: a 2025 client on its session's event stream (list changes always,
resource updates for the URIs it passed to C{resources/subscribe}), a
2026-07-28 client on the stream of its C{subscriptions/listen} request, which
names what it wants (a L{Filter}) and tags each notice with the listen
request's id.  L{ChangeNotices} is the one place changes are announced;
the eras differ only in their L{Subscriber}.
"""

from collections.abc import Callable, Iterable

import attr

from gsmcpd.protocol.dispatch import MAX_SUBSCRIPTIONS, MAX_URI_LENGTH
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonObject, JsonRpcError
from gsmcpd.protocol.eras.modern.envelope import SUBSCRIPTION_ID_KEY
from gsmcpd.sessions.client import McpSession

Deliver = Callable[[str, JsonObject], None]
"""How a subscriber is told: called with a notice's method and params."""

LIST_CHANGES = {
    "toolsListChanged": "notifications/tools/list_changed",
    "promptsListChanged": "notifications/prompts/list_changed",
    "resourcesListChanged": "notifications/resources/list_changed",
}
"""Each list a client may follow, and the notice that says it changed."""
RESOURCE_UPDATED = "notifications/resources/updated"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"


@attr.s(frozen=True, auto_attribs=True)
class Filter:
    """
    What one listener wants to hear of.
    """

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
        """
        This filter less what the server does not offer.

        @param offered: a L{Filter} of what the server can announce (a
            true C{resourceSubscriptions} is any non-empty set).
        """
        return attr.evolve(
            self, resourceSubscriptions=self.resourceSubscriptions
            if offered.resourceSubscriptions else frozenset(),
            **{name: getattr(self, name) and getattr(offered, name)
               for name in LIST_CHANGES})


def readFilter(params: JsonObject) -> Filter:
    """
    The L{Filter} of a C{subscriptions/listen} request.

    @raise JsonRpcError: C{-32602} when C{notifications} is missing or not
        the object the revision defines, or names more resources, or longer
        URIs, than a 2025 session may subscribe to (the count is checked
        before any URI is looked at, so a huge list costs nothing).
    """
    notifications = params.get("notifications")
    if not isinstance(notifications, dict):
        raise JsonRpcError(INVALID_PARAMS, "Invalid params: subscriptions/"
                           "listen needs notifications, an object naming "
                           "what to listen for")
    flags = {}
    for name in LIST_CHANGES:
        value = notifications.get(name, False)
        if not isinstance(value, bool):
            raise JsonRpcError(INVALID_PARAMS,
                               f"Invalid params: {name} must be a boolean")
        flags[name] = value
    uris = notifications.get("resourceSubscriptions", [])
    if isinstance(uris, list) and len(uris) > MAX_SUBSCRIPTIONS:
        raise JsonRpcError(INVALID_PARAMS, "Invalid params: a listener "
                           f"follows at most {MAX_SUBSCRIPTIONS} resources")
    if not isinstance(uris, list) or not all(isinstance(uri, str)
                                             for uri in uris):
        raise JsonRpcError(INVALID_PARAMS, "Invalid params: "
                           "resourceSubscriptions must be a list of URIs")
    if any(len(uri) > MAX_URI_LENGTH for uri in uris):
        raise JsonRpcError(INVALID_PARAMS, "Invalid params: a resource "
                           f"URI is at most {MAX_URI_LENGTH} characters")
    return Filter(**flags, resourceSubscriptions=frozenset(uris))


class Subscriber:
    """
    One listener: what it wants, and how a notice reaches it.

    @ivar deliver: called with C{(method, params)} for each notice.
    @ivar subscriptionId: the listen request's id, with which a 2026-era
        listener's notices are tagged, or L{None} (2025: none).
    """

    def __init__(self, wants, deliver, subscriptionId=None):
        self._wants = wants
        self.deliver = deliver
        self.subscriptionId = subscriptionId

    @classmethod
    def forListen(cls, filter: Filter, deliver: Deliver,
                  subscriptionId: object) -> "Subscriber":
        return cls(lambda: filter, deliver, subscriptionId)

    @property
    def filter(self) -> Filter:
        """
        Asked at each change: a 2025 session's subscriptions change while it
        listens.
        """
        return self._wants()

    def tell(self, method: str, params: JsonObject) -> None:
        if self.subscriptionId is not None:
            params = dict(params, _meta={
                SUBSCRIPTION_ID_KEY: self.subscriptionId})
        self.deliver(method, params)

    def acknowledge(self) -> None:
        """
        The first notice on a 2026 listen stream: what it will hear of.
        """
        self.tell(ACKNOWLEDGED, {"notifications": self.filter.wire()})


class ChangeNotices:
    """
    The daemon's listeners, and the changes announced to them.
    """

    def __init__(self):
        self._subscribers = []

    def __len__(self):
        return len(self._subscribers)

    def listenStreams(self) -> int:
        """
        How many 2026 C{subscriptions/listen} streams are open (each tags
        its notices with its request's id; a 2025 session's does not).
        """
        return sum(1 for subscriber in self._subscribers
                   if subscriber.subscriptionId is not None)

    def add(self, subscriber: Subscriber) -> None:
        self._subscribers.append(subscriber)

    def remove(self, subscriber: Subscriber) -> None:
        if subscriber in self._subscribers:
            self._subscribers.remove(subscriber)

    def _tell(self, wanted, method, params):
        for subscriber in list(self._subscribers):
            if wanted(subscriber.filter):
                subscriber.tell(method, params)

    def listChanged(self, name: str) -> None:
        """
        @param name: a key of L{LIST_CHANGES} (C{"toolsListChanged"}, ...).
        """
        self._tell(lambda wants: getattr(wants, name), LIST_CHANGES[name],
                   {})

    def resourcesUpdated(self, uris: Iterable[str]) -> None:
        """
        Each URI's subscribers hear of it once, whatever else changed.
        """
        for uri in sorted(set(uris)):
            self._tell(lambda wants: uri in wants.resourceSubscriptions,
                       RESOURCE_UPDATED, {"uri": uri})


class SessionListeners:
    """
    2025 sessions as listeners: each is told, on its own event stream, of
    updates to the resources it passed to C{resources/subscribe}.
    """

    def __init__(self, notices):
        self._notices = notices
        self._subscribers = {}

    def add(self, session: McpSession) -> None:
        def deliver(method, params):
            session.post({"jsonrpc": "2.0", "method": method,
                          "params": params})

        subscriber = Subscriber(lambda: Filter(resourceSubscriptions=frozenset(
            session.subscriptions)), deliver)
        self._subscribers[session.handle] = subscriber
        self._notices.add(subscriber)

    def remove(self, session: McpSession) -> None:
        subscriber = self._subscribers.pop(session.handle, None)
        if subscriber is not None:
            self._notices.remove(subscriber)
