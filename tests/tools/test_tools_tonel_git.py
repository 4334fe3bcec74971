"""
The round trip L{gsmcpd.tools.tonel} is for, through an actual C{git}
working tree: export, write the files, C{git diff} empty, edit one method
in its file, C{diff_tonel} names only it, C{load_tonel}, the tests pass,
C{commit}, and the stone's export is the committed tree.
"""

import os
import shutil
import subprocess

from twisted.internet.defer import inlineCallbacks

from tests.tools.test_tools_mutation import GUARDED_WITHDRAW, WITHDRAW
from tests.tools.test_tools_tonel import TonelTestCase


class GitRoundTripTests(TonelTestCase):

    if shutil.which("git") is None:
        skip = "git is not installed"

    def git(self, *arguments):
        return subprocess.run(
            ["git", "-C", self.tree, "-c", "user.name=t", "-c",
             "user.email=t@example.com", *arguments],
            check=True, capture_output=True, text=True).stdout

    @inlineCallbacks
    def exportInto(self):
        """Write the stone's Banking dictionary into the working tree, as
        an agent's file tools would; answer the export's base."""
        found = yield self.exported(dictionary="Banking")
        for each in found["files"]:
            path = os.path.join(self.tree, "src", each["path"])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(each["content"])
        return found["base"]

    def treeFiles(self):
        files = []
        for directory, _, names in sorted(os.walk(os.path.join(
                self.tree, "src"))):
            for name in sorted(names):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8", newline="") as f:
                    files.append({"path": os.path.relpath(
                        path, os.path.join(self.tree, "src")),
                        "content": f.read()})
        return files

    @inlineCallbacks
    def test_roundTrip(self):
        self.tree = self.mktemp()
        os.makedirs(self.tree)
        self.git("init", "-q")
        yield self.exportInto()
        self.git("add", "-A")
        self.git("commit", "-qm", "Banking from the stone")
        base = yield self.exportInto()
        self.assertEqual(self.git("status", "--porcelain"), "")

        account = os.path.join(self.tree, "src", "Banking-Core",
                               "Account.class.st")
        with open(account, encoding="utf-8", newline="") as f:
            text = f.read()
        body = WITHDRAW.split("\n", 1)[1]
        self.assertIn(body, text)
        with open(account, "w", encoding="utf-8", newline="") as f:
            f.write(text.replace(body, GUARDED_WITHDRAW.split("\n", 1)[1]))
        self.assertEqual(self.git("diff", "--name-only"),
                         "src/Banking-Core/Account.class.st\n")

        result = yield self.succeed("diff_tonel", files=self.treeFiles())
        self.assertEqual([(c["className"], c["selector"], c["change"])
                          for c in result["structuredContent"]["changes"]],
                         [("Account", "withdraw:", "changed")])
        yield self.succeed("load_tonel", files=self.treeFiles(), base=base)
        for test in ("testWithdrawTooMuch", "testDeposit"):
            ran = yield self.succeed("run_test_method",
                                     className="AccountTest", selector=test)
            self.assertEqual(ran["structuredContent"]["status"], "passed")
        yield self.succeed("commit")
        self.git("commit", "-qam", "withdraw: refuses overdrafts")

        other = self.harness.newClient()
        found = yield self.exported(other, dictionary="Banking")
        self.assertEqual(
            {each["path"]: each["content"] for each in found["files"]},
            {each["path"]: each["content"] for each in self.treeFiles()})
        self.assertEqual(self.git("status", "--porcelain"), "")
