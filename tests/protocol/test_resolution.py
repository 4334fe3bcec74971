"""
Tests for L{gsmcpd.protocol.eras.legacy.resolution}: which client session
a 2025 request's session id names.
(How the transport answers each failure is in L{tests.transport.test_gates}.)
"""

from types import SimpleNamespace

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol.eras.legacy.resolution import (
    NoSessionId,
    NoSuchSession,
    clientSession,
)


def principal(identity):
    return Principal(identity, identity, frozenset(), 0.0)


class _Registry:
    """
    The 2025 client sessions by id, each with its work session's owner.
    """

    def __init__(self, owners):
        self._clients = {
            sessionId: SimpleNamespace(work=SimpleNamespace(principal=owner))
            for sessionId, owner in owners.items()}

    def __getitem__(self, sessionId):
        return self._clients[sessionId]

    @property
    def clients(self):
        return self._clients


class ClientSessionTests(SynchronousTestCase):

    def setUp(self):
        self.sessions = _Registry({"abc": None, "alices": principal("alice")})

    def test_named(self):
        self.assertIs(clientSession(self.sessions, "abc", None),
                      self.sessions["abc"])

    def test_owner(self):
        self.assertIs(clientSession(self.sessions, "alices",
                                    principal("alice")),
                      self.sessions["alices"])

    def test_noSessionId(self):
        self.assertRaises(NoSessionId, clientSession, self.sessions, None,
                          None)

    def test_unknownStrangerAndHandleAlike(self):
        """
        An unknown id and another identity's session are each no such
        session.
        """
        for sessionId, who in [("zzz", None), ("alices", None),
                               ("alices", principal("mallory"))]:
            self.assertRaises(NoSuchSession, clientSession, self.sessions,
                              sessionId, who)
