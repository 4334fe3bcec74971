"""
The simulated stone runs the Smalltalk it is sent, over real sockets: a
real C{twistd gsmcp --simulated}, its GCI binding, the simulated stone's C
library and its process.
"""

import os
import shutil
from pathlib import Path

from twisted.trial.unittest import SynchronousTestCase

import gsmcpd
from tests.realdaemon import Daemon


class EditedTemplateTests(SynchronousTestCase):
    """
    A daemon whose status template was edited to send a selector no
    GemStone has.
    """

    def setUp(self):
        directory = Path(self.mktemp()).absolute()
        directory.mkdir()
        # A copy of the package, first on the daemon's path, with one
        # template edited: the installed one is left alone.
        package = directory / "lib" / "gsmcpd"
        shutil.copytree(Path(gsmcpd.__file__).parent, package,
                        ignore=shutil.ignore_patterns("__pycache__"))
        template = package / "tools" / "templates" / "status.st"
        edited = template.read_text("utf-8").replace(
            "System myUserProfile userId", "System myUserProfile userIdentity")
        self.assertIn("userIdentity", edited)
        template.write_text(edited, "utf-8")
        before = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = str(package.parent)
        try:
            self.daemon = Daemon(str(directory))
        finally:
            if before is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = before
        self.addCleanup(self.daemon.stop)

    def test_toolFailsWithDoesNotUnderstand(self):
        """
        The stone runs the edited Smalltalk, and the tool fails with the
        stone's MessageNotUnderstood (GemStone error 2010) naming the
        selector, as a real stone would answer it.
        """
        session = self.daemon.initialize()
        status, _, body = self.daemon.rpc("tools/call", session, 7, name="status",
                                          arguments={})
        self.assertEqual((status, body["id"]), (200, 7))
        result = body["result"]
        self.assertTrue(result["isError"], result)
        text = result["content"][0]["text"]
        self.assertIn("MessageNotUnderstood", text)
        self.assertIn("2010", text)
        self.assertIn("#'userIdentity'", text)
