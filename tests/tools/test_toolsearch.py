"""
Tests for L{gsmcpd.tools.toolsearch}: an agent's words find the tool.
"""

from itertools import pairwise

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.base import Tool
from gsmcpd.tools.catalog import DEFAULT_TOOLSETS, ToolCatalog
from gsmcpd.tools.toolsearch import equivalents, searchTools, stem


class StemTests(SynchronousTestCase):

    def test_plurals(self):
        self.assertEqual(stem("dictionaries"), stem("dictionary"))
        self.assertEqual(stem("classes"), stem("class"))
        self.assertEqual(stem("senders"), stem("sender"))
        self.assertEqual(stem("class"), "class")

    def test_synonyms(self):
        self.assertIn(stem("remove"), equivalents("delete"))
        self.assertIn(stem("delete"), equivalents("Remove"))
        self.assertEqual(equivalents("zebra"), {"zebra"})


class SearchTests(SynchronousTestCase):

    def setUp(self):
        self.tools = list(ToolCatalog.named())

    def best(self, query):
        return [hit.tool.name for hit in searchTools(self.tools, query)]

    def test_deleteDictionary(self):
        """
        "delete dictionary" finds remove_dictionary first: no tool says
        "delete" of a dictionary.
        """
        self.assertEqual(self.best("delete dictionary")[0],
                         "remove_dictionary")

    def test_wordsInAnyPlace(self):
        self.assertEqual(self.best("who sends deposit:")[0], "find_senders")
        self.assertEqual(self.best("undo my changes")[0], "abort")
        self.assertIn(self.best("failing tests")[0],
                      ("list_failing_tests", "describe_test_failure"))

    def test_toolsOfOtherToolsets(self):
        """
        A tool of any toolset is found by the words an agent would use,
        without keywords of its own.
        """
        profiler = Tool("profile_code", "Profile code", "Run code under "
                        "the profiler; the top methods by samples.",
                        {}, {}, None)
        self.assertEqual([hit.tool.name for hit in searchTools(
            [*self.tools, profiler], "why is it slow")][0], "profile_code")

    def test_moreWordsMatchedFirst(self):
        hits = searchTools(self.tools, "remove class")
        self.assertEqual(hits[0].tool.name, "delete_class")
        self.assertEqual(hits[0].matched, 2)
        self.assertTrue(all(a.matched >= b.matched
                            for a, b in pairwise(hits)))

    def test_everyServedToolFound(self):
        """
        Every tool the default surface serves (and the admin one) is among
        the first three a search by the words of its name finds.
        """
        tools = list(ToolCatalog.named([*DEFAULT_TOOLSETS, "admin"]))
        for tool in tools:
            found = [hit.tool.name for hit in searchTools(
                tools, tool.name.replace("_", " "))]
            self.assertIn(tool.name, found[:3])

    def test_askedWordBeforeItsSynonyms(self):
        """
        The word asked counts more than its synonyms: "inspect" (a synonym
        of "describe") finds inspect before the describe_ tools; the
        debugging tools are found by an agent's words.
        """
        tools = list(ToolCatalog.named(DEFAULT_TOOLSETS))
        for query, name in (("inspect", "inspect"),
                            ("look at an object", "inspect"),
                            ("profile slow code", "profile_code")):
            self.assertEqual(searchTools(tools, query)[0].tool.name, name,
                             query)

    def test_nothing(self):
        self.assertEqual(self.best("zebra"), [])
        self.assertEqual(self.best("what is it"), [])
        self.assertEqual(self.best("!!!"), [])
