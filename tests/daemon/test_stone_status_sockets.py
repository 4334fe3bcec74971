"""
C{stone_status} over real sockets: a real C{twistd gsmcp --simulated}
serving the admin toolset, two MCP sessions, the GCI binding and the
simulated stone's process.
"""



from tests.realdaemon import DaemonTestCase


class StoneStatusTests(DaemonTestCase):

    def setUp(self):
        self.daemon = self.startDaemon("--toolsets",
                                       "admin execution session")

    def call(self, session, name, **arguments):
        status, _, body = self.daemon.rpc("tools/call", session, 7, name=name,
                                          arguments=arguments)
        self.assertEqual(status, 200, body)
        result = body["result"]
        self.assertFalse(result["isError"], result)
        return result

    def test_bothSessionsListed(self):
        """
        Each MCP session is a GemStone session of the stone; the one that
        named its gem is listed under that name.
        """
        mine, theirs = self.daemon.initialize(), self.daemon.initialize()
        self.call(theirs, "execute_code", code="System cacheName: 'worker'")
        result = self.call(mine, "stone_status")
        structured = result["structuredContent"]
        ours = [each for each in structured["sessions"] if each["current"]]
        self.assertEqual(len(ours), 1)
        self.assertIn("worker", [each["gemName"] for each in structured["sessions"]])
        self.assertEqual(ours[0]["user"], "DataCurator")
        self.assertIsInstance(structured["commitRecordBacklog"], int)
        self.assertIn("shared page cache:", result["content"][0]["text"])
