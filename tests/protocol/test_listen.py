"""
Tests for L{gsmcpd.protocol.eras.modern.listen}: what a
C{subscriptions/listen} request asks to hear of.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern.listen import readFilter
from gsmcpd.protocol.handlers import MAX_SUBSCRIPTIONS, MAX_URI_LENGTH
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError
from gsmcpd.sessions.listeners import Filter

SOURCE = "gemstone://class/Foo/source"


class ReadFilterTests(SynchronousTestCase):

    def test_read(self):
        self.assertEqual(
            readFilter({"notifications": {"toolsListChanged": True,
                                          "resourceSubscriptions": [SOURCE]}}),
            Filter(toolsListChanged=True,
                   resourceSubscriptions=frozenset({SOURCE})))
        self.assertEqual(readFilter({"notifications": {}}), Filter())

    def test_malformed(self):
        for notifications in (None, [], {"toolsListChanged": "yes"},
                              {"resourceSubscriptions": SOURCE},
                              {"resourceSubscriptions": [1]}):
            error = self.assertRaises(JsonRpcError, readFilter,
                                      {"notifications": notifications})
            self.assertEqual(error.code, INVALID_PARAMS)
        self.assertRaises(JsonRpcError, readFilter, {})

    def test_bounded(self):
        """
        A listener follows no more resources, and no longer URIs, than a
        2025 session may subscribe to; a list too long is refused by its
        length alone, before any member is looked at.
        """
        def refusal(uris):
            return self.assertRaises(
                JsonRpcError, readFilter,
                {"notifications": {"resourceSubscriptions": uris}})

        tooMany = refusal([None] * (MAX_SUBSCRIPTIONS + 1))
        self.assertEqual(tooMany.code, INVALID_PARAMS)
        self.assertIn(str(MAX_SUBSCRIPTIONS), tooMany.message)
        tooLong = refusal(["gemstone://" + "x" * MAX_URI_LENGTH])
        self.assertEqual(tooLong.code, INVALID_PARAMS)
        self.assertIn(str(MAX_URI_LENGTH), tooLong.message)
        self.assertEqual(
            len(readFilter({"notifications": {"resourceSubscriptions": [
                f"gemstone://class/C{n}/source"
                for n in range(MAX_SUBSCRIPTIONS)]}}).resourceSubscriptions),
            MAX_SUBSCRIPTIONS)
