"""
The GemStone working guides served as skills.
"""

import re

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern.skills import Skills
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.guides import GUIDES, servedGuides

NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\Z")


class GuideTests(SynchronousTestCase):

    def test_wellFormed(self):
        """
        Every guide has a name usable as a path segment, a one-line
        description and a heading.
        """
        for guide in GUIDES:
            self.assertTrue(NAME.match(guide.name), guide.name)
            self.assertNotIn("\n", guide.description)
            self.assertTrue(guide.body.strip().startswith("# "), guide.name)

    def test_namesOnlyTheirToolsetsTools(self):
        """
        A tool a guide names in backquotes is one of its toolsets' tools.
        """
        for guide in GUIDES:
            tools = {tool.name for tool in ToolCatalog.named(guide.toolsets)}
            for named in re.findall(r"`([a-z_]+)`", guide.body):
                self.assertIn(named, tools, guide.name)

    def test_servedOnlyWithTheirToolsets(self):
        """
        A guide naming tools of a toolset that is not served is not served.
        """
        self.assertEqual([g.name for g in servedGuides(["session"])],
                         ["gemstone-what-a-view-is",
                          "gemstone-commit-or-abort"])
        self.assertEqual(len(servedGuides(
            ["admin", "browsing", "debugger", "debugging", "mutation", "search",
             "session", "testing"])),
            len(GUIDES))
        skills = Skills.fromGuides(servedGuides(["testing"]))
        self.assertEqual([s.name for s in skills], ["gemstone-running-sunit"])
