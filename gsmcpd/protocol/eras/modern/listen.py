"""
C{subscriptions/listen}: a 2026-07-28 client's way of hearing of changes, on
its response's stream (L{gsmcpd.transport.modern}), tagged with its id.
"""

from gsmcpd.protocol.eras.modern.envelope import SUBSCRIPTION_ID_KEY
from gsmcpd.protocol.handlers import MAX_SUBSCRIPTIONS, refuseLongUris
from gsmcpd.protocol.jsonrpc import JsonObject, invalidParams
from gsmcpd.sessions.listeners import LIST_CHANGES, Deliver, Filter, Subscriber

ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
OFFERED = Filter(True, True, True, frozenset({"any"}))
"""List changes, and updates of any resource a listener names."""


def readFilter(params: JsonObject) -> Filter:
    """
    Refused with C{-32602} when malformed, or naming more resources, or
    longer URIs, than a 2025 session may subscribe to (counted before any
    URI is read: a huge list costs nothing).
    """
    notifications = params.get("notifications")
    if not isinstance(notifications, dict):
        raise invalidParams("subscriptions/listen needs notifications, an "
                            "object naming what to listen for")
    flags = {}
    for name in LIST_CHANGES:
        value = notifications.get(name, False)
        if not isinstance(value, bool):
            raise invalidParams(f"{name} must be a boolean")
        flags[name] = value
    uris = notifications.get("resourceSubscriptions", [])
    if isinstance(uris, list) and len(uris) > MAX_SUBSCRIPTIONS:
        raise invalidParams(f"a listener follows at most "
                            f"{MAX_SUBSCRIPTIONS} resources")
    if not isinstance(uris, list) or not all(isinstance(uri, str)
                                             for uri in uris):
        raise invalidParams("resourceSubscriptions must be a list of URIs")
    refuseLongUris(uris)
    return Filter(**flags, resourceSubscriptions=frozenset(uris))


class Listener(Subscriber):
    """One C{subscriptions/listen} stream, its notices tagged with its id."""

    def __init__(self, filter: Filter, deliver: Deliver,
                 subscriptionId: object):
        super().__init__(lambda: filter, deliver, subscriptionId)

    def tell(self, method: str, params: JsonObject) -> None:
        self.deliver(method, dict(params, _meta={
            SUBSCRIPTION_ID_KEY: self.subscriptionId}))

    def acknowledge(self) -> None:
        """The first notice on the stream: what it will hear of."""
        self.tell(ACKNOWLEDGED, {"notifications": self.filter.wire()})
