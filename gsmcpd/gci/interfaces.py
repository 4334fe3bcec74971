"""
The seams between the MCP layer and GemStone sessions.
"""

from zope.interface import Attribute, Interface  # type: ignore[import-untyped]

# zope.interface declares methods without self, which mypy takes for a
# mistake: the two that take no argument at all are excused below.


class IGemSession(Interface):
    """
    One GemStone session whose calls run off the reactor thread.
    """

    name = Attribute("How logs name this session.")
    busy = Attribute("Whether a call is queued or running.")
    gone = Attribute("The fatal GciError that ended the session, or None.")

    def execute(source, maxBytes):
        """
        Execute Smalltalk source (a str); a Deferred firing with the
        byte-format result, or failing with a GciError.
        """

    def interrupt(hard):
        """
        Break the call running now, if any; callable on the reactor thread.
        """

    def callState(d):
        """
        "running" or "queued" for the call whose result is C{d}, or None
        when it is over.
        """

    def endCall(d, hard):
        """
        End the call whose result is C{d}: break it if it runs, withdraw it
        if it is queued.  Answers "broken", "withdrawn" or None.
        """

    def abandon(reason):
        """
        Give up on the session: withdraw every queued call now; log out
        whenever the stuck call returns.
        """

    def logout():  # type: ignore[misc]
        """
        Log out after every queued call; a Deferred firing with None.
        """


class ISessionPool(Interface):
    """
    Where GemStone sessions come from, and the cap on how many.
    """

    def open(name, user=None):
        """
        A Deferred firing with a logged-in IGemSession (as GemStone user
        C{user}, or the pool's default user); raises SessionLimitReached
        synchronously, without a login, when full, and ServerStopping once
        told to refuseNew.
        """

    def refuseNew():
        """
        Open no new session from now on: the daemon is draining.
        """

    def close(gem):
        """
        Log C{gem} out and free its slot; a Deferred.
        """

    def replace(gem, name, user=None):
        """
        Abandon C{gem} and log a new session in (as C{user}), in its slot; a
        Deferred firing with the new IGemSession.
        """

    def closeAll():  # type: ignore[misc]
        """
        Log every session out; a Deferred.
        """
