"""
Tests for L{gsmcpd.sessions.clients}: which client session a 2025
request's session id names, and the one a request works in.
(How the transport answers each failure is in L{tests.transport.test_gates};
the rest of the 2025 client sessions, through the registry, in
L{tests.sessions.test_registry}.)
"""

from types import SimpleNamespace

from twisted.internet.defer import Deferred
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.sessions.clients import ClientSessions, NoSessionId, NoSuchSession


def principal(identity):
    return Principal(identity, identity, frozenset(), 0.0)


class _Work:
    """
    A work session as resolution reads it, and as it is touched.
    """

    def __init__(self, owner):
        self.principal = owner
        self.replacing = None

    def awaitReplacement(self):
        return self.replacing


class _Table:

    def __init__(self):
        self.touched = []

    def touch(self, work):
        self.touched.append(work)


def clientSessions(owners):
    """
    L{ClientSessions} holding a client session by each id of C{owners},
    its work session opened by that owner.
    """
    table = _Table()
    clients = ClientSessions(None, table, None, Clock())
    for sessionId, owner in owners.items():
        clients._clients[sessionId] = SimpleNamespace(handle=sessionId,
                                                      work=_Work(owner))
    return clients, table


class NamedTests(SynchronousTestCase):

    def setUp(self):
        self.clients, self.table = clientSessions(
            {"abc": None, "alices": principal("alice")})

    def test_named(self):
        self.assertIs(self.clients.named("abc", None),
                      self.clients.get("abc"))

    def test_owner(self):
        self.assertIs(self.clients.named("alices", principal("alice")),
                      self.clients.get("alices"))

    def test_noSessionId(self):
        self.assertRaises(NoSessionId, self.clients.named, None, None)

    def test_unknownStrangerAndHandleAlike(self):
        """
        An unknown id and another identity's session are each no such
        session.
        """
        for sessionId, who in [("zzz", None), ("alices", None),
                               ("alices", principal("mallory"))]:
            self.assertRaises(NoSuchSession, self.clients.named, sessionId,
                              who)


class WorkingTests(SynchronousTestCase):

    def setUp(self):
        self.clients, self.table = clientSessions({"abc": None})
        self.client = self.clients.get("abc")

    def test_working(self):
        """
        A request works in the session its id names, which it touches.
        """
        self.assertIs(self.clients.working("abc", None), self.client)
        self.assertEqual(self.table.touched, [self.client.work])

    def test_afterItsReplacement(self):
        """
        A request to a session whose gem is being replaced works in it
        once the replacement is in place, found again then.
        """
        self.client.work.replacing = Deferred()
        working = self.clients.working("abc", None)
        self.assertNoResult(working)
        self.client.work.replacing.callback(None)
        self.assertIs(self.successResultOf(working), self.client)

    def test_goneWhileReplaced(self):
        """
        A session closed while its replacement was awaited is no such
        session.
        """
        self.client.work.replacing = Deferred()
        working = self.clients.working("abc", None)
        del self.clients._clients["abc"]
        self.client.work.replacing.callback(None)
        self.failureResultOf(working, NoSuchSession)
