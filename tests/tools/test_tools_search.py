"""
The search tools, end to end on the simulated stone's seeded repository
(L{gsmcpd.testing.simulator.seed}): C{Greeter} in C{UserGlobals}, then C{Account},
C{AccountTest} and C{SavingsAccount} in C{Banking}.
"""

import jsonschema
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.protocol.jsonrpc import Message
from gsmcpd.testing.simulator import reflection
from gsmcpd.testing.simulator.kernel import CLASSES
from gsmcpd.tools.search import SEARCH_LIMIT
from tests.toolharness import ToolHarness, checkStructured, effectiveHints
from tests.tools.test_tools_listing import codeModel

SEARCH_TOOLS = ("find_implementors", "find_references_to", "find_senders",
                "search_method_source")

BALANCE_HITS = [
    "Account>>balance  [accessing]", "Account>>deposit:  [operations]",
    "Account>>initialize  [initialization]", "Account>>withdraw:  [operations]",
    "AccountTest>>testBroken  [tests]", "AccountTest>>testDeposit  [tests]",
    "AccountTest>>testWithdrawTooMuch  [tests]",
    "SavingsAccount>>interest  [operations]"]
"""The methods whose source holds C{balance}, in scan order."""


@inlineCallbacks
def called(harness, tool, arguments):
    """
    The result of C{tools/call}, arguments given as a dict: L{ToolHarness}
    takes them as keywords, which cannot include one called C{name}.
    """
    message = Message("request", "tools/call", 1,
                      {"name": tool, "arguments": arguments}, {})
    response = yield harness.legacy.answer(harness.client, message)
    return response["result"]


@inlineCallbacks
def checked(harness, tool, **arguments):
    """
    C{(text lines, structuredContent)} of a successful call, after checking
    the structured result against the tool's output schema.
    """
    result = yield called(harness, tool, arguments)
    if result["isError"]:
        raise AssertionError(f"{tool} failed: {result['content']}")
    checkStructured(harness.tools.get(tool), result["structuredContent"])
    return result["content"][0]["text"].split("\n"), result["structuredContent"]


@inlineCallbacks
def failed(harness, tool, **arguments):
    """
    C{(kind, message)} of a call that fails as a tool error.
    """
    result = yield called(harness, tool, arguments)
    if not result["isError"]:
        raise AssertionError(f"{tool} succeeded: {result['content']}")
    return (result["structuredContent"]["error"]["kind"],
            result["content"][0]["text"])


class SearchTestCase(TestCase):

    def setUp(self):
        self.harness = ToolHarness(("search",))

    def lines(self, tool, **arguments):
        return checked(self.harness, tool, **arguments).addCallback(
            lambda answer: answer[0])


class SchemaTests(SearchTestCase):

    def test_toolsDeclared(self):
        """
        Four read-only tools with closed input schemas, a non-empty
        required search term, and valid output schemas.
        """
        registry = self.harness.tools
        self.assertEqual(sorted(tool.name for tool in registry),
                         sorted(SEARCH_TOOLS))
        for tool in registry:
            schema = tool.inputSchema
            self.assertFalse(schema["additionalProperties"])
            (term,) = schema["required"]
            self.assertEqual(schema["properties"][term]["minLength"], 1)
            self.assertTrue(effectiveHints(tool.annotations)["readOnlyHint"])
            self.assertFalse(effectiveHints(tool.annotations)["openWorldHint"])
            self.assertTrue(tool.title)
            jsonschema.Draft202012Validator.check_schema(tool.outputSchema)

    @inlineCallbacks
    def test_invalidParams(self):
        """
        An empty search term, a negative or non-integer limit or offset, a
        missing term and an unknown argument are invalidParams, before
        anything runs in the stone.
        """
        for tool, term in (("find_implementors", "selector"),
                           ("find_references_to", "name"),
                           ("find_senders", "selector"),
                           ("search_method_source", "pattern")):
            for arguments in ({term: ""}, {term: "x", "limit": -1},
                              {term: "x", "offset": -1},
                              {term: "x", "limit": "5"}, {},
                              {term: "x", "className": "Account"}):
                kind, _ = yield failed(self.harness, tool, **arguments)
                self.assertEqual(kind, "invalidParams", (tool, arguments))
        self.assertEqual(self.harness.gem.sources, [])


    @inlineCallbacks
    def test_categoriesOfThePageOnly(self):
        """
        The cross-reference searches sort every hit but look up the
        category of the page's rows only: on a real stone's kernel a search
        finds thousands of methods.
        """
        model = codeModel(self.harness)
        model.compileMethod("SavingsAccount", "owner\n\t^'bank'")
        model.compileMethod("SavingsAccount", "twin\n\t^Account new")
        looked = []
        methodOf = reflection.methodOf
        self.patch(reflection, "methodOf",
                   lambda ev, behavior, selector:
                   looked.append(selector) or methodOf(ev, behavior, selector))
        for tool, arguments in (("find_implementors", {"selector": "owner"}),
                                ("find_senders", {"selector": "balance"}),
                                ("find_references_to", {"name": "Account"})):
            del looked[:]
            _, structured = yield checked(self.harness, tool, limit=1, **arguments)
            self.assertGreater(structured["page"]["total"], 1, tool)
            self.assertEqual(len(looked), 1, tool)


class FindImplementorsTests(SearchTestCase):

    @inlineCallbacks
    def test_implementors(self):
        """
        Every class implementing the selector, with its category, sorted
        by class; a class-side method is marked.
        """
        model = codeModel(self.harness)
        model.compileMethod("SavingsAccount", "owner\n\t^'bank'", "accessing")
        model.compileMethod("Greeter", "owner\n\t^nil", "accessing", meta=True)
        lines, structured = yield checked(self.harness, "find_implementors",
                                          selector="owner")
        self.assertEqual(lines, [
            "(showing 1-3 of 3)", "Account>>owner  [accessing]",
            "Greeter class>>owner  [accessing]",
            "SavingsAccount>>owner  [accessing]"])
        self.assertEqual(structured["methods"][1], {
            "className": "Greeter", "meta": True, "selector": "owner",
            "category": "accessing"})
        self.assertEqual(structured["page"], {
            "offset": 0, "limit": SEARCH_LIMIT, "total": 3, "nextOffset": None,
            "atLeast": None})

    @inlineCallbacks
    def test_none(self):
        lines, structured = yield checked(self.harness, "find_implementors",
                                          selector="noSuchSelector:")
        self.assertEqual((lines, structured["methods"]), (["(none)"], []))

    @inlineCallbacks
    def test_quotedSelector(self):
        """
        A selector holding quotes reaches the stone as text only.
        """
        lines = yield self.lines("find_implementors", selector="x' , 'y")
        self.assertEqual(lines, ["(none)"])


class FindSendersTests(SearchTestCase):

    @inlineCallbacks
    def test_senders(self):
        """
        Senders found by parsing, sorted by class then selector, 200 at a
        time by default.
        """
        lines, structured = yield checked(self.harness, "find_senders",
                                          selector="deposit:")
        self.assertEqual(lines, ["(showing 1-2 of 2)",
                                 "AccountTest>>testDeposit  [tests]",
                                 "AccountTest>>testWithdrawTooMuch  [tests]"])
        self.assertEqual(structured["page"]["limit"], 200)

    @inlineCallbacks
    def test_pages(self):
        """
        Each window says which it is, of the true total, and where the next
        starts; limit 0 answers the count alone.
        """
        lines = yield self.lines("find_senders", selector="balance",
                                 limit=2)
        self.assertEqual(lines, [
            "(showing 1-2 of 4; pass offset: 2 for the next page)",
            "AccountTest>>testBroken  [tests]",
            "AccountTest>>testDeposit  [tests]"])
        lines, structured = yield checked(
            self.harness, "find_senders", selector="balance", offset=2,
            limit=1)
        self.assertEqual(lines, [
            "(showing 3-3 of 4; pass offset: 3 for the next page)",
            "AccountTest>>testWithdrawTooMuch  [tests]"])
        self.assertEqual(structured["page"]["nextOffset"], 3)
        lines = yield self.lines("find_senders", selector="balance",
                                 offset=3)
        self.assertEqual(lines, ["(showing 4-4 of 4)",
                                 "SavingsAccount>>interest  [operations]"])
        lines = yield self.lines("find_senders", selector="balance",
                                 limit=0)
        self.assertEqual(lines, ["(4 in all; pass a limit to list them)"])
        lines = yield self.lines("find_senders", selector="balance",
                                 offset=9)
        self.assertEqual(lines, ["(none at offset 9; there are 4)"])

    @inlineCallbacks
    def test_sessionView(self):
        """
        A search sees its own session's uncommitted methods, and no other
        session's.
        """
        codeModel(self.harness).compileMethod(
            "Greeter", "greetTwice\n\tself greet; greet")
        lines = yield self.lines("find_senders", selector="greet")
        self.assertEqual(lines[1:], ["Greeter>>greetTwice  [as yet unclassified]"])
        lines = yield checked(self.harness.newClient(), "find_senders",
                              selector="greet")
        self.assertEqual(lines[0], ["(none)"])


class FindReferencesTests(SearchTestCase):

    @inlineCallbacks
    def test_class(self):
        lines, structured = yield checked(self.harness, "find_references_to",
                                          name="Account")
        self.assertEqual(lines, ["(showing 1-1 of 1)",
                                 "AccountTest>>setUp  [running]"])
        self.assertEqual(structured["methods"][0]["className"], "AccountTest")

    @inlineCallbacks
    def test_global(self):
        """
        A global that is not a class is found by name too.
        """
        lines = yield self.lines("find_references_to", name="AppName")
        self.assertEqual(lines, ["(showing 1-1 of 1)",
                                 "Greeter>>greet  [greeting]"])

    @inlineCallbacks
    def test_unreferenced(self):
        lines = yield self.lines("find_references_to", name="SavingsAccount")
        self.assertEqual(lines, ["(none)"])

    @inlineCallbacks
    def test_unknown(self):
        """
        A name that is not in the symbol list is notFound, not "(none)".
        """
        result = yield failed(self.harness, "find_references_to",
                              name="NoSuchGlobal")
        self.assertEqual(result, (
            "notFound", "Global not found: NoSuchGlobal (no global of that "
            "name in this session's symbol list)"))


    @inlineCallbacks
    def test_nearestGlobal(self):
        """
        A misspelt global is answered with the nearest names of the
        session's symbol list.
        """
        kind, message = yield failed(self.harness, "find_references_to",
                                     name="Accuont")
        self.assertEqual(kind, "notFound")
        self.assertTrue(message.endswith(" Nearest: Account."), message)


class SearchMethodSourceTests(SearchTestCase):

    @inlineCallbacks
    def test_scanOrder(self):
        """
        Hits come in scan order: dictionaries in symbol-list order (so
        C{Greeter} in C{UserGlobals} comes before C{Account}), classes by
        name, instance side first; the scan ran to the end, so the total is
        known.  The kernel's methods written in Smalltalk (Globals comes
        after Banking) follow, as a real stone's kernel sources do.
        """
        lines, structured = yield checked(
            self.harness, "search_method_source", pattern="^", limit=500)
        self.assertEqual(lines[1:7], [
            "Greeter>>greet  [greeting]",
            "Account>>balance  [accessing]", "Account>>owner  [accessing]",
            "Account class>>new  [instance creation]",
            "Account class>>owner:  [instance creation]",
            "SavingsAccount>>interest  [operations]"])
        kernel = [line.split(">>")[0].removesuffix(" class") for line in lines[7:]]
        self.assertTrue(kernel)
        self.assertEqual([name for name in kernel if name not in CLASSES], [])
        self.assertEqual(structured["page"]["total"], len(lines) - 1)

    @inlineCallbacks
    def test_caseSensitive(self):
        lines = yield self.lines("search_method_source", pattern="BALANCE")
        self.assertEqual(lines, ["(none)"])

    @inlineCallbacks
    def test_stopsOnePastThePage(self):
        """
        A page that is not the last does not know the total: it says how
        many there are at least and where the next page starts.
        """
        lines, structured = yield checked(
            self.harness, "search_method_source", pattern="balance", limit=3)
        self.assertEqual(lines, [
            "(showing 1-3 of at least 4; the total is not known; pass "
            "offset: 3 for the next page)", *BALANCE_HITS[:3]])
        self.assertEqual(structured["page"], {
            "offset": 0, "limit": 3, "total": None, "nextOffset": 3,
            "atLeast": 4})
        lines = yield self.lines("search_method_source", pattern="balance",
                                 offset=3, limit=3)
        self.assertEqual(lines, [
            "(showing 4-6 of at least 7; the total is not known; pass "
            "offset: 6 for the next page)", *BALANCE_HITS[3:6]])
        lines, structured = yield checked(
            self.harness, "search_method_source", pattern="balance",
            offset=6, limit=3)
        self.assertEqual(lines, ["(showing 7-8 of 8)", *BALANCE_HITS[6:]])
        self.assertIsNone(structured["page"]["nextOffset"])

    @inlineCallbacks
    def test_exactlyOnePage(self):
        """
        A scan that ends with exactly a page of hits knows its total.
        """
        lines = yield self.lines("search_method_source", pattern="balance",
                                 limit=8)
        self.assertEqual(lines, ["(showing 1-8 of 8)", *BALANCE_HITS])

    @inlineCallbacks
    def test_count(self):
        """
        limit 0 scans everything to count.
        """
        lines, structured = yield checked(
            self.harness, "search_method_source", pattern="balance", limit=0)
        self.assertEqual(lines, ["(8 in all; pass a limit to list them)"])
        self.assertEqual(structured["methods"], [])

    @inlineCallbacks
    def test_pastTheEnd(self):
        """
        An offset past the last hit says how many there are.
        """
        lines = yield self.lines("search_method_source", pattern="balance",
                                 offset=20)
        self.assertEqual(lines, ["(none at offset 20; there are 8)"])

    @inlineCallbacks
    def test_dictionary(self):
        lines = yield self.lines("search_method_source", pattern="^",
                                 dictionaryName="UserGlobals")
        self.assertEqual(lines, ["(showing 1-1 of 1)",
                                 "Greeter>>greet  [greeting]"])

    @inlineCallbacks
    def test_unknownDictionary(self):
        result = yield failed(self.harness, "search_method_source",
                              pattern="x", dictionaryName="NoSuchDictionary")
        self.assertEqual(result, (
            "notFound", "Dictionary not found: NoSuchDictionary "
            "(list_dictionaries lists the dictionaries of this session's "
            "symbol list)"))
        result = yield failed(self.harness, "search_method_source",
                              pattern="x", dictionaryName="Usergloabls")
        self.assertEqual(result[1][-len(" Nearest: UserGlobals."):],
                         " Nearest: UserGlobals.")

    @inlineCallbacks
    def test_quotedPattern(self):
        """
        A pattern holding quotes is matched as text.
        """
        lines = yield self.lines("search_method_source", pattern="'ann'")
        self.assertEqual(lines, ["(showing 1-1 of 1)",
                                 "AccountTest>>setUp  [running]"])


class CaseOnlyNamesTests(SearchTestCase):
    """
    Names that differ only in case, which an image's String C{<} may not
    tell apart (the simulated stone's does not) while C{=} does: every
    search sorts them by a total order, so paging across them neither
    repeats nor skips one.
    """

    CLASSES = ("Probe", "PROBE")

    def setUp(self):
        super().setUp()
        model = codeModel(self.harness)
        model.defineClass("CaseTarget", "Object")
        for name in self.CLASSES:
            model.defineClass(name, "Object")
            model.compileMethod(name, "caseProbe\n\t^CaseTarget new caseProbeSent", "probing")

    @inlineCallbacks
    def pagedClassNames(self, tool, **arguments):
        names = []
        for offset in range(len(self.CLASSES)):
            _, structured = yield checked(self.harness, tool, offset=offset, limit=1,
                                          **arguments)
            names += [each["className"] for each in structured["methods"]]
        return names

    @inlineCallbacks
    def test_findImplementors(self):
        names = yield self.pagedClassNames("find_implementors", selector="caseProbe")
        self.assertEqual(names, ["PROBE", "Probe"])

    @inlineCallbacks
    def test_findSenders(self):
        names = yield self.pagedClassNames("find_senders", selector="caseProbeSent")
        self.assertEqual(names, ["PROBE", "Probe"])

    @inlineCallbacks
    def test_findReferencesTo(self):
        names = []
        for offset in range(len(self.CLASSES)):
            result = yield called(self.harness, "find_references_to",
                                  {"name": "CaseTarget", "offset": offset, "limit": 1})
            names += [each["className"] for each in result["structuredContent"]["methods"]]
        self.assertEqual(names, ["PROBE", "Probe"])

    @inlineCallbacks
    def test_searchMethodSource(self):
        """
        The scan's order of classes and of selectors is total too.
        """
        model = codeModel(self.harness)
        model.compileMethod("Probe", "CASEPROBE\n\t^'caseProbe'", "probing")
        seen = []
        for offset in range(3):
            _, structured = yield checked(self.harness, "search_method_source",
                                          pattern="caseProbe", offset=offset, limit=1)
            seen += [f"{each['className']}>>{each['selector']}"
                     for each in structured["methods"]]
        self.assertEqual(seen, ["PROBE>>caseProbe", "Probe>>CASEPROBE", "Probe>>caseProbe"])
