"""
One large request must not freeze everyone (issue 11, item 3), against a
live C{twistd gsmcp --simulated}: while it is handled, another session's
C{ping} stays under 100 ms.
"""

import json

from twisted.trial.unittest import SynchronousTestCase

from tests.hostile.live import LiveDaemon

PING_LIMIT = 0.100


class LargeRequestTests(LiveDaemon, SynchronousTestCase):

    def pingsDuring(self, document):
        """
        Send C{document} from a second session while this one pings; answer
        the large request's answer and the slowest ping.
        """
        other = self.daemon.initialize()
        body = json.dumps(document, separators=(",", ":")).encode()
        answer = {}

        def large():
            status, _, reply = self.post(body, {"mcp-session-id": other})
            answer.update(status=status, body=json.loads(reply))

        return answer, self.slowestPingWhile(large, PING_LIMIT)

    def test_millionElementClassDefinition(self):
        """
        A 4 MiB class definition with a million instance variable names is
        refused as invalid params without looking at each one.
        """
        answer, slowest = self.pingsDuring({
            "jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
                "name": "compile_class_definition", "arguments": {
                    "className": "Huge",
                    "instVarNames": ["a"] * 1_000_000}}})
        self.assertIn("result", answer["body"], str(answer)[:500])
        result = answer["body"]["result"]
        self.assertEqual(result["structuredContent"]["error"]["kind"],
                         "invalidParams", result)
        self.assertIn("more than the 1024 allowed",
                      result["structuredContent"]["error"]["message"])
        self.assertLess(slowest, PING_LIMIT)

    def test_megabyteMethodSource(self):
        """
        A method source of a megabyte is read here only for its pattern.
        """
        source = "foo ^1" + "+1" * ((1 << 19) - 4)
        answer, slowest = self.pingsDuring({
            "jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
                "name": "compile_method", "arguments": {
                    "className": "Object", "source": source}}})
        # The simulated stone compiles slowly; the deadline may end it.
        self.assertEqual(answer["body"]["id"], 6)
        self.assertLess(slowest, PING_LIMIT)
