"""
The listing tools, end to end on the simulated stone's seeded repository
(L{gsmcpd.testing.simulator.seed}: C{Banking} second in the symbol list, holding
C{Account}, C{SavingsAccount} and C{AccountTest}; C{Greeter} and the global
C{AppName} in C{UserGlobals}).
"""

import jsonschema
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.testing.simulator.model import CodeModel
from gsmcpd.tools.listing import nameOrder
from gsmcpd.tools.paging import LIST_LIMIT
from tests.toolharness import ToolHarness, effectiveHints


@inlineCallbacks
def checkedCall(harness, name, **arguments):
    """
    C{(text, structuredContent)} of a successful call, its structured
    result checked against the tool's output schema (by the harness).
    """
    result = yield harness.call(name, **arguments)
    if result.get("isError"):
        raise AssertionError(f"{name} failed: {result['content']}")
    return result["content"][0]["text"], result["structuredContent"]


def codeModel(harness):
    """
    The code repository as the harness's own session sees it.
    """
    return CodeModel(harness.gem.session)


class SchemaTests(TestCase):

    def test_toolsDeclared(self):
        """
        Four read-only tools with closed input schemas and valid output
        schemas.
        """
        registry = ToolHarness(("listing",)).tools
        self.assertEqual(
            sorted(tool.name for tool in registry),
            ["list_all_classes", "list_classes", "list_dictionaries",
             "list_dictionary_entries"])
        for tool in registry:
            self.assertFalse(tool.inputSchema["additionalProperties"])
            self.assertTrue(effectiveHints(tool.annotations)["readOnlyHint"])
            self.assertFalse(effectiveHints(tool.annotations)["openWorldHint"])
            self.assertTrue(tool.title)
            jsonschema.Draft202012Validator.check_schema(tool.outputSchema)
            jsonschema.Draft202012Validator.check_schema(tool.inputSchema)


class ListDictionariesTests(TestCase):

    @inlineCallbacks
    def test_lookupOrder(self):
        """
        The symbol list's dictionaries in lookup order, one a line, with how
        many entries each holds.
        """
        harness = ToolHarness(("listing",))
        text, structured = yield checkedCall(harness, "list_dictionaries")
        model = codeModel(harness)
        names = model.symbolList()
        self.assertEqual(names[:2], ["UserGlobals", "Banking"])
        self.assertEqual(structured["dictionaries"], [
            {"name": name, "entries": len(model.dictionaryEntries(name))}
            for name in names])
        lines = text.splitlines()
        self.assertEqual(len(lines), len(names))
        self.assertEqual(
            lines[1], f"Banking  ({len(model.dictionaryEntries('Banking'))} "
                      f"entries)")

    @inlineCallbacks
    def test_addedDictionary(self):
        """
        A dictionary this session added (uncommitted) is listed to it, last,
        and not to another client.
        """
        harness = ToolHarness(("listing",))
        codeModel(harness).addDictionary("Scratch")
        text, _ = yield checkedCall(harness, "list_dictionaries")
        self.assertEqual(text.splitlines()[-1], "Scratch  (1 entry)")
        text, _ = yield checkedCall(harness.newClient(), "list_dictionaries")
        self.assertNotIn("Scratch", text)

    @inlineCallbacks
    def test_noArguments(self):
        kind, message = yield ToolHarness(("listing",)).error(
            "list_dictionaries", limit=1)
        self.assertEqual(kind, "invalidParams")


class ListAllClassesTests(TestCase):

    def setUp(self):
        self.harness = ToolHarness(("listing",))
        model = codeModel(self.harness)
        self.expected = sorted(
            ({"className": info.name, "dictionary": dictionary}
             for dictionary in model.symbolList()
             for info in model.dictionaryEntries(dictionary).values()
             if not isinstance(info, str)),
            key=lambda item: (nameOrder(item["className"]),
                              item["dictionary"]))

    @inlineCallbacks
    def test_everything(self):
        """
        With no limit, every class of every dictionary, sorted by name, each
        with its dictionary; the header says it is all of them.
        """
        text, structured = yield checkedCall(self.harness, "list_all_classes")
        total = len(self.expected)
        self.assertEqual(structured["classes"], self.expected)
        self.assertIn({"className": "Account", "dictionary": "Banking"},
                      structured["classes"])
        self.assertIn({"className": "Object", "dictionary": "Globals"},
                      structured["classes"])
        self.assertEqual(structured["page"], {
            "offset": 0, "limit": LIST_LIMIT, "total": total, "nextOffset": None,
            "atLeast": None})
        lines = text.splitlines()
        self.assertEqual(lines[0], f"(showing 1-{total} of {total})")
        self.assertIn("Account  (Banking)", lines)
        self.assertEqual(len(lines), total + 1)

    @inlineCallbacks
    def test_window(self):
        """
        limit and offset choose a window; the header names it and the
        offset of the next page.
        """
        text, structured = yield checkedCall(
            self.harness, "list_all_classes", limit=2, offset=1)
        total = len(self.expected)
        self.assertEqual(structured["classes"], self.expected[1:3])
        self.assertEqual(structured["page"]["nextOffset"], 3)
        self.assertEqual(
            text.splitlines()[0],
            f"(showing 2-3 of {total}; pass offset: 3 for the next page)")
        self.assertEqual(len(text.splitlines()), 3)

    @inlineCallbacks
    def test_lastPage(self):
        total = len(self.expected)
        text, structured = yield checkedCall(
            self.harness, "list_all_classes", limit=5, offset=total - 2)
        self.assertEqual(structured["classes"], self.expected[-2:])
        self.assertIsNone(structured["page"]["nextOffset"])
        self.assertEqual(text.splitlines()[0],
                         f"(showing {total - 1}-{total} of {total})")

    @inlineCallbacks
    def test_countOnly(self):
        """
        limit: 0 answers the count alone.
        """
        text, structured = yield checkedCall(
            self.harness, "list_all_classes", limit=0)
        self.assertEqual(text, f"({len(self.expected)} in all; pass a limit "
                               f"to list them)")
        self.assertEqual(structured["classes"], [])

    @inlineCallbacks
    def test_pastTheEnd(self):
        total = len(self.expected)
        text, structured = yield checkedCall(
            self.harness, "list_all_classes", offset=total + 5)
        self.assertEqual(text, f"(none at offset {total + 5}; there are "
                               f"{total})")
        self.assertEqual(structured["classes"], [])

    @inlineCallbacks
    def test_badPaging(self):
        """
        A negative or non-integer limit or offset is invalidParams.
        """
        for arguments in ({"limit": -1}, {"offset": -3}, {"limit": "10"},
                          {"limit": 1.5}, {"dictionaryName": "Banking"}):
            kind, message = yield self.harness.error("list_all_classes",
                                                     **arguments)
            self.assertEqual(kind, "invalidParams", arguments)


class ListClassesTests(TestCase):

    @inlineCallbacks
    def test_classesOfADictionary(self):
        """
        The classes a dictionary holds, sorted, and not its other globals.
        """
        harness = ToolHarness(("listing",))
        text, structured = yield checkedCall(harness, "list_classes",
                                             dictionaryName="Banking")
        self.assertEqual(structured["classes"], [
            {"className": name, "dictionary": "Banking"}
            for name in ("Account", "AccountTest", "SavingsAccount")])
        self.assertEqual(text, "(showing 1-3 of 3)\nAccount\nAccountTest\n"
                               "SavingsAccount")
        text, structured = yield checkedCall(harness, "list_classes",
                                             dictionaryName="UserGlobals")
        self.assertEqual([c["className"] for c in structured["classes"]],
                         ["Greeter"])

    @inlineCallbacks
    def test_sortedIgnoringCase(self):
        """
        Names sort case-insensitively.
        """
        harness = ToolHarness(("listing",))
        model = codeModel(harness)
        model.addDictionary("Scratch")
        for name in ("Zebra", "Apple", "ZZtop", "Mango"):
            model.defineClass(name, "Object", dictionary="Scratch")
        text, structured = yield checkedCall(harness, "list_classes",
                                             dictionaryName="Scratch")
        self.assertEqual([c["className"] for c in structured["classes"]],
                         ["Apple", "Mango", "Zebra", "ZZtop"])

    @inlineCallbacks
    def test_page(self):
        harness = ToolHarness(("listing",))
        text, structured = yield checkedCall(
            harness, "list_classes", dictionaryName="Banking", limit=1,
            offset=1)
        self.assertEqual(text, "(showing 2-2 of 3; pass offset: 2 for the "
                               "next page)\nAccountTest")
        self.assertEqual(structured["page"]["total"], 3)

    @inlineCallbacks
    def test_unknownDictionary(self):
        """
        An unknown dictionary is notFound, naming it and the tool that
        lists the dictionaries.
        """
        kind, message = yield ToolHarness(("listing",)).error(
            "list_classes", dictionaryName="Nowhere")
        self.assertEqual(kind, "notFound")
        self.assertEqual(
            message, "Dictionary not found: Nowhere (list_dictionaries lists "
                     "the dictionaries of this session's symbol list)")

    @inlineCallbacks
    def test_nearestDictionary(self):
        """
        A misspelt dictionary is answered with the nearest dictionary names
        of the session's symbol list.
        """
        for tool in ("list_classes", "list_dictionary_entries"):
            kind, message = yield ToolHarness(("listing",)).error(
                tool, dictionaryName="UserGlobal")
            self.assertEqual((kind, message), (
                "notFound", "Dictionary not found: UserGlobal (list_dictionaries "
                "lists the dictionaries of this session's symbol list) Nearest: "
                "UserGlobals."), tool)

    @inlineCallbacks
    def test_quotedName(self):
        """
        A name holding quotes reaches the stone as text, not as source.
        """
        kind, message = yield ToolHarness(("listing",)).error(
            "list_classes", dictionaryName="it's'' here")
        self.assertEqual(kind, "notFound")
        self.assertIn("Dictionary not found: it's'' here ", message)

    @inlineCallbacks
    def test_badArguments(self):
        harness = ToolHarness(("listing",))
        for arguments in ({}, {"dictionaryName": ""},
                          {"dictionaryName": "Banking", "limit": -1},
                          {"dictionaryName": "Banking", "sorted": True}):
            kind, message = yield harness.error("list_classes", **arguments)
            self.assertEqual(kind, "invalidParams", arguments)


class ListDictionaryEntriesTests(TestCase):

    @inlineCallbacks
    def test_taggedEntries(self):
        """
        Every entry, sorted, tagged (class) or (global); a dictionary holds
        itself under its own name.
        """
        harness = ToolHarness(("listing",))
        text, structured = yield checkedCall(
            harness, "list_dictionary_entries", dictionaryName="UserGlobals")
        self.assertEqual(structured["dictionary"], "UserGlobals")
        self.assertEqual(structured["entries"], [
            {"name": "AppName", "kind": "global"},
            {"name": "Greeter", "kind": "class"},
            {"name": "UserGlobals", "kind": "global"}])
        self.assertEqual(text, "(showing 1-3 of 3)\nAppName  (global)\n"
                               "Greeter  (class)\nUserGlobals  (global)")

    @inlineCallbacks
    def test_page(self):
        harness = ToolHarness(("listing",))
        text, structured = yield checkedCall(
            harness, "list_dictionary_entries", dictionaryName="UserGlobals",
            limit=0)
        self.assertEqual(text, "(3 in all; pass a limit to list them)")
        self.assertEqual(structured["page"]["total"], 3)

    @inlineCallbacks
    def test_unknownDictionary(self):
        kind, message = yield ToolHarness(("listing",)).error(
            "list_dictionary_entries", dictionaryName="Nowhere")
        self.assertEqual(kind, "notFound")
        self.assertIn("Dictionary not found: Nowhere", message)
        self.assertIn("list_dictionaries", message)

    @inlineCallbacks
    def test_badArguments(self):
        harness = ToolHarness(("listing",))
        for arguments in ({}, {"dictionaryName": 3},
                          {"dictionaryName": "Banking", "offset": -1}):
            kind, message = yield harness.error("list_dictionary_entries",
                                                **arguments)
            self.assertEqual(kind, "invalidParams", arguments)

    @inlineCallbacks
    def test_readsRecordNothing(self):
        """
        Listing licenses no write: the ledger stays empty.
        """
        harness = ToolHarness(("listing",))
        yield checkedCall(harness, "list_dictionary_entries",
                          dictionaryName="Banking")
        yield checkedCall(harness, "list_all_classes")
        self.assertEqual(harness.session.ledger.viewMoved(), [])
