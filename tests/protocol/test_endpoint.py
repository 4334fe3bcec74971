"""
Tests for L{gsmcpd.protocol.endpoint}: the transport's one entry.
"""

from json import loads

import attr
from twisted.internet.defer import succeed
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase
from zope.interface import implementer
from zope.interface.verify import verifyObject

from gsmcpd.protocol.endpoint import (
    Endpoint,
    Exchange,
    IPostEra,
    Reply,
    json,
    sessionRefused,
)
from gsmcpd.protocol.eras.modern.entry import ModernEntry
from gsmcpd.protocol.jsonrpc import parseMessage
from gsmcpd.protocol.versions import MODERN_VERSION
from gsmcpd.sessions.clients import NoSessionId, NoSuchSession


@implementer(IPostEra)
@attr.s(auto_attribs=True)
class Era:
    name: str
    claiming: bool
    posted: list = attr.Factory(list)

    def claims(self, message, version):
        return self.claiming

    def post(self, exchange, message):
        self.posted.append(message)
        return succeed(Reply(self.name.encode("ascii")))


def exchange(body):
    return Exchange(body, ("2025-11-25",), None, dict, None, False,
                    None, None, None)


class EndpointTests(SynchronousTestCase):
    def setUp(self):
        self.first, self.second = Era("first", False), Era("second", True)
        self.endpoint = Endpoint((self.first, self.second))

    def test_eras(self):
        verifyObject(IPostEra, self.first)

    def test_firstEraThatClaims(self):
        """
        A message goes to the first era that claims it, and its request id
        is kept for the error handler.
        """
        sent = exchange(b'{"jsonrpc": "2.0", "id": 7, "method": "ping"}')
        reply = self.successResultOf(self.endpoint.post(sent))
        self.assertEqual((reply.body, sent.requestId), (b"second", 7))
        self.assertEqual((self.first.posted, len(self.second.posted)),
                         ([], 1))

    def test_notJsonRpc(self):
        """
        A body that is no JSON-RPC message is answered 400 with the parse
        error (its data left out), before any era sees it.
        """
        sent = exchange(b'{"jsonrpc": "2.0", "id": 3, "method": 4}')
        reply = self.successResultOf(self.endpoint.post(sent))
        self.assertEqual((reply.status, sent.requestId), (400, 3))
        self.assertEqual(loads(reply.body)["error"], {
            "code": -32600, "message": "Invalid Request: method must be a "
            "string"})
        self.assertEqual(self.second.posted, [])

    def test_sessionRefused(self):
        """
        No session id is refused 400, no such session 404; anything else
        fails on.
        """
        for error, status in ((NoSessionId(), 400), (NoSuchSession(), 404)):
            reply = sessionRefused(Failure(error), 5)
            self.assertEqual((reply.status, loads(reply.body)["id"]),
                             (status, 5))
        self.assertRaises(KeyError, sessionRefused, Failure(KeyError()), 5)

    def test_json(self):
        """
        A JSON reply carries its headers, then its content type.
        """
        self.assertEqual(json({}, 202, ((b"a", b"b"),)), Reply(
            b"{}", 202, ((b"a", b"b"), (b"content-type",
                                        b"application/json"))))


class ModernClaimsTests(SynchronousTestCase):

    def test_byTheLastVersionValue(self):
        """
        The 2026 era claims a message by the last version value the gates
        read (none: by its C{_meta}).
        """
        message = parseMessage(b'{"jsonrpc": "2.0", "id": 1, '
                               b'"method": "ping", "params": {}}')
        claims = ModernEntry(None).claims
        self.assertTrue(claims(message, ("2025-11-25", MODERN_VERSION)))
        self.assertFalse(claims(message, (MODERN_VERSION, "2025-11-25")))
        self.assertFalse(claims(message, ()))
