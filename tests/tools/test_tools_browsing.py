"""
The browsing tools, end to end on the simulated stone's seeded repository
(L{gsmcpd.testing.simulator.seed}: C{Account} and its subclass C{SavingsAccount} in
C{Banking}; the global C{AppName} in C{UserGlobals}), and the reads they
record for the blind-write guardrail.
"""

import jsonschema
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.protocol.jsonrpc import Message
from gsmcpd.tools.execution import MAX_VALUE_CHARACTERS
from gsmcpd.tools.ledger import classKey, methodKey
from gsmcpd.tools.paging import LIST_LIMIT
from tests.toolharness import ToolHarness, effectiveHints
from tests.tools.test_tools_listing import checkedCall, codeModel

CLASS_NOT_FOUND = (
    "Class not found: {} (no class of that name in this session's symbol "
    "list; list_all_classes or list_classes lists the classes)")

CLASS_TOOLS = ("describe_class", "export_class_source",
               "get_class_definition", "get_class_hierarchy", "list_methods")


def recorded(harness):
    """
    The keys the session's ledger holds (emptying it: call it last).
    """
    return set(harness.session.ledger.viewMoved())


class BrowsingTestCase(TestCase):

    def setUp(self):
        self.harness = ToolHarness(("browsing",))
        self.model = codeModel(self.harness)


class SchemaTests(BrowsingTestCase):

    def test_toolsDeclared(self):
        """
        Six read-only tools with closed input schemas and valid output
        schemas.
        """
        registry = self.harness.tools
        self.assertEqual(sorted(tool.name for tool in registry),
                         sorted(CLASS_TOOLS + ("get_method_source",)))
        for tool in registry:
            self.assertFalse(tool.inputSchema["additionalProperties"])
            self.assertIn("className", tool.inputSchema["required"])
            self.assertTrue(effectiveHints(tool.annotations)["readOnlyHint"])
            self.assertTrue(tool.title)
            jsonschema.Draft202012Validator.check_schema(tool.outputSchema)

    @inlineCallbacks
    def test_classNotFound(self):
        """
        Every tool that takes a class answers notFound for a name that is
        unbound or names a global that is not a class, naming it and the
        listing tools; nothing is recorded.
        """
        for tool in CLASS_TOOLS:
            for name in ("NoSuchClass", "AppName", "Account class"):
                kind, message = yield self.harness.error(tool, className=name)
                self.assertEqual((kind, message),
                                 ("notFound", CLASS_NOT_FOUND.format(name)),
                                 tool)
        self.assertEqual(recorded(self.harness), set())

    @inlineCallbacks
    def test_nearestClass(self):
        """
        A misspelt class is answered with the nearest class names of the
        session's symbol list, by every tool that takes a class.
        """
        for tool in CLASS_TOOLS + ("get_method_source",):
            arguments = {"selector": "x"} if tool == "get_method_source" else {}
            kind, message = yield self.harness.error(tool, className="Acount",
                                                     **arguments)
            self.assertEqual((kind, message), (
                "notFound", CLASS_NOT_FOUND.format("Acount") + " Nearest: Account."),
                tool)
        kind, message = yield self.harness.error("describe_class",
                                                 className="account")
        self.assertTrue(message.endswith(" Nearest: Account."), message)

    @inlineCallbacks
    def test_quotedClassName(self):
        """
        A class name holding quotes reaches the stone as text only.
        """
        kind, message = yield self.harness.error(
            "describe_class", className="Account' , 'x")
        self.assertEqual(message, CLASS_NOT_FOUND.format("Account' , 'x"))

    @inlineCallbacks
    def test_badArguments(self):
        for tool in CLASS_TOOLS:
            for arguments in ({}, {"className": ""}, {"className": 7},
                              {"className": "Account", "meta": True}):
                kind, message = yield self.harness.error(tool, **arguments)
                self.assertEqual(kind, "invalidParams", (tool, arguments))


class DescribeClassTests(BrowsingTestCase):

    @inlineCallbacks
    def test_seededClass(self):
        """
        Superclass, variables, category, comment and both sides' selectors,
        sorted; it records nothing.
        """
        text, structured = yield checkedCall(self.harness, "describe_class",
                                             className="Account")
        info = self.model.classNamed("Account")
        self.assertEqual(structured, {
            "className": "Account", "superclass": "Object",
            "category": info.category, "comment": info.comment,
            "instVarNames": ["balance", "owner"], "classVarNames": [],
            "classInstVarNames": [],
            "instanceSelectors": sorted(self.model.methods("Account")),
            "classSelectors": ["new", "owner:"]})
        self.assertEqual(text.splitlines()[:5], [
            "Account", "superclass: Object", f"category: {info.category}",
            "instance variables: balance owner", "class variables: (none)"])
        self.assertIn("instance selectors: balance deposit: initialize",
                      text)
        self.assertIn("class selectors: new owner:", text)
        self.assertTrue(text.endswith(f"comment: {info.comment}"))
        self.assertEqual(recorded(self.harness), set())

    @inlineCallbacks
    def test_variables(self):
        """
        Class and class-instance variables are shown; a class with no
        comment shows the one GemStone generates (the model's as a 3.x
        stone's, "No class-specific documentation for ...").
        """
        self.model.defineClass("Ledger", "Object", ("entries",),
                               classVars=("Default",),
                               classInstVars=("count",))
        text, structured = yield checkedCall(self.harness, "describe_class",
                                             className="Ledger")
        self.assertEqual(structured["classVarNames"], ["Default"])
        self.assertEqual(structured["classInstVarNames"], ["count"])
        self.assertEqual(structured["instanceSelectors"], [])
        self.assertIn("class-instance variables: count\n", text)
        self.assertIn("instance selectors: (none)\n", text)
        self.assertIn("comment: No class-specific documentation for Ledger, hierarchy is: \n"
                      "Object\n  Ledger( entries)\n", text)


    @inlineCallbacks
    def test_kernelClass(self):
        """
        A kernel class of the simulated stone lists the selectors the model
        has, and its comment says a real stone's class has more (issue 29).
        """
        text, structured = yield checkedCall(self.harness, "describe_class",
                                             className="System")
        self.assertIn("commitTransaction", structured["classSelectors"])
        self.assertIn("GemStone's System has more", text)


class ClassDefinitionTests(BrowsingTestCase):

    @inlineCallbacks
    def test_definition(self):
        """
        The definition expression, as the stone answers it, recorded as a
        read of the class.
        """
        text, structured = yield checkedCall(
            self.harness, "get_class_definition", className="SavingsAccount")
        definition = self.model.definition("SavingsAccount")
        self.assertEqual(text, definition)
        self.assertTrue(text.startswith("Account subclass: 'SavingsAccount'"))
        self.assertEqual(structured, {
            "className": "SavingsAccount", "definition": definition,
            "totalCharacters": len(definition), "truncated": False})
        self.assertEqual(
            self.harness.session.ledger.lastRead(classKey("SavingsAccount")),
            definition)
        self.assertEqual(recorded(self.harness),
                         {classKey("SavingsAccount")})


class ExportClassSourceTests(BrowsingTestCase):

    @inlineCallbacks
    def test_fileOut(self):
        """
        The topaz file-in of the class; the definition and every method on
        both sides are recorded as read, each with its exact source.
        """
        text, structured = yield checkedCall(
            self.harness, "export_class_source", className="Account")
        fileOut = self.model.fileOut("Account")
        self.assertEqual(text, fileOut)
        self.assertIn("removeallmethods Account", text)
        self.assertEqual(structured, {
            "className": "Account", "fileOut": fileOut,
            "totalCharacters": len(fileOut), "truncated": False})
        ledger = self.harness.session.ledger
        self.assertEqual(ledger.lastRead(classKey("Account")),
                         self.model.definition("Account"))
        methods = [*self.model.methods("Account").values(),
                   *self.model.methods("Account", meta=True).values()]
        self.assertEqual(ledger.lastRead(methodKey("Account", "new", True)),
                         self.model.method("Account", "new", True).source)
        self.assertEqual(
            recorded(self.harness),
            {classKey("Account")} | {methodKey("Account", m.selector, m.meta)
                                     for m in methods})

    @inlineCallbacks
    def test_truncated(self):
        """
        Over 50,000 characters the file-out is cut with the marker, and only
        the methods it showed count as read.
        """
        self.model.defineClass("Big", "Object")
        self.model.compileMethod("Big", "small\n\t^1", meta=True)
        huge = "huge\n\t^'" + "x" * MAX_VALUE_CHARACTERS + "'"
        self.model.compileMethod("Big", huge)
        text, structured = yield checkedCall(
            self.harness, "export_class_source", className="Big")
        total = len(self.model.fileOut("Big"))
        self.assertTrue(text.endswith(
            f"...[truncated: showing {MAX_VALUE_CHARACTERS} of {total} "
            f"characters]"))
        self.assertEqual(structured["totalCharacters"], total)
        self.assertTrue(structured["truncated"])
        self.assertEqual(len(structured["fileOut"]), MAX_VALUE_CHARACTERS)
        self.assertEqual(recorded(self.harness),
                         {classKey("Big"), methodKey("Big", "small", True)})


class ClassHierarchyTests(BrowsingTestCase):

    @inlineCallbacks
    def test_chainAndSubclasses(self):
        """
        The chain from the root down, indented, then the direct subclasses.
        """
        text, structured = yield checkedCall(
            self.harness, "get_class_hierarchy", className="Account")
        self.assertEqual(structured, {"className": "Account",
                                      "superclasses": ["Object"],
                                      "subclasses": ["SavingsAccount"]})
        self.assertEqual(text, "Object\n  Account\ndirect subclasses:\n"
                               "  SavingsAccount")

    @inlineCallbacks
    def test_leaf(self):
        self.model.defineClass("Zeta", "SavingsAccount")
        self.model.defineClass("Alpha", "SavingsAccount")
        text, structured = yield checkedCall(
            self.harness, "get_class_hierarchy", className="SavingsAccount")
        self.assertEqual(structured["superclasses"], ["Object", "Account"])
        self.assertEqual(structured["subclasses"], ["Alpha", "Zeta"])
        text, structured = yield checkedCall(
            self.harness, "get_class_hierarchy", className="Zeta")
        self.assertEqual(text, "Object\n  Account\n    SavingsAccount\n"
                               "      Zeta\ndirect subclasses:\n  (none)")


class MethodSourceTests(BrowsingTestCase):

    @inlineCallbacks
    def test_instanceSide(self):
        """
        A line naming the method and its category, then its source; the
        read is recorded with the exact source.
        """
        text, structured = yield checkedCall(
            self.harness, "get_method_source", className="Account",
            selector="deposit:")
        method = self.model.method("Account", "deposit:")
        self.assertEqual(text, f"Account>>deposit: (category: "
                               f"{method.category})\n{method.source}")
        self.assertEqual(structured, {
            "className": "Account", "meta": False, "selector": "deposit:",
            "category": method.category, "source": method.source,
            "totalCharacters": len(method.source), "truncated": False})
        self.assertEqual(self.harness.session.ledger.lastRead(
            methodKey("Account", "deposit:")), method.source)
        self.assertEqual(recorded(self.harness),
                         {methodKey("Account", "deposit:")})

    @inlineCallbacks
    def test_classSide(self):
        text, structured = yield checkedCall(
            self.harness, "get_method_source", className="Account",
            selector="new", meta=True)
        source = self.model.method("Account", "new", True).source
        self.assertTrue(text.startswith("Account class>>new (category: "))
        self.assertEqual(structured["source"], source)
        self.assertTrue(structured["meta"])
        self.assertEqual(recorded(self.harness),
                         {methodKey("Account", "new", True)})

    @inlineCallbacks
    def test_long(self):
        """
        A source over 50,000 characters is shown cut, with the marker; the
        whole source is what is recorded.
        """
        self.model.defineClass("Big", "Object")
        huge = "huge\n\t^'" + "x" * MAX_VALUE_CHARACTERS + "'"
        self.model.compileMethod("Big", huge)
        text, structured = yield checkedCall(
            self.harness, "get_method_source", className="Big",
            selector="huge")
        self.assertTrue(text.endswith(
            f"...[truncated: showing {MAX_VALUE_CHARACTERS} of {len(huge)} "
            f"characters]"))
        self.assertEqual(structured["source"], huge[:MAX_VALUE_CHARACTERS])
        self.assertTrue(structured["truncated"])
        self.assertEqual(self.harness.session.ledger.lastRead(
            methodKey("Big", "huge")), huge)

    @inlineCallbacks
    def test_methodNotFound(self):
        """
        A selector the class (or its class side) does not define is
        notFound, naming the method and the tool that lists them.
        """
        kind, message = yield self.harness.error(
            "get_method_source", className="Account", selector="close")
        self.assertEqual((kind, message), (
            "notFound", "Method not found: Account>>close (list_methods "
                        "lists the selectors of Account)"))
        kind, message = yield self.harness.error(
            "get_method_source", className="Account", selector="deposit:",
            meta=True)
        self.assertEqual(kind, "notFound")
        self.assertIn("Method not found: Account class>>deposit: ", message)
        kind, message = yield self.harness.error(
            "get_method_source", className="Account", selector="deposti:")
        self.assertEqual((kind, message), (
            "notFound", "Method not found: Account>>deposti: (list_methods "
                        "lists the selectors of Account) Nearest: deposit:."))
        self.assertEqual(recorded(self.harness), set())

    @inlineCallbacks
    def test_classNotFound(self):
        kind, message = yield self.harness.error(
            "get_method_source", className="Nope", selector="x")
        self.assertEqual((kind, message),
                         ("notFound", CLASS_NOT_FOUND.format("Nope")))

    @inlineCallbacks
    def test_badArguments(self):
        for arguments in ({"className": "Account"},
                          {"className": "Account", "selector": ""},
                          {"className": "Account", "selector": "new",
                           "meta": "yes"},
                          {"className": "Account", "selector": "new",
                           "environment": 0}):
            kind, message = yield self.harness.error("get_method_source",
                                                     **arguments)
            self.assertEqual(kind, "invalidParams", arguments)

    @inlineCallbacks
    def test_anotherViewIsNotRead(self):
        """
        A read is recorded in the reading session's ledger only.
        """
        other = self.harness.newClient()
        yield checkedCall(other, "get_method_source", className="Account",
                          selector="balance")
        self.assertEqual(recorded(self.harness), set())
        self.assertEqual(recorded(other), {methodKey("Account", "balance")})


class ListMethodsTests(BrowsingTestCase):

    @inlineCallbacks
    def test_grouped(self):
        """
        Both sides' selectors grouped by category, sorted; nothing is
        recorded.
        """
        text, structured = yield checkedCall(self.harness, "list_methods",
                                             className="Account")
        methods = [*self.model.methods("Account").values(),
                   *self.model.methods("Account", meta=True).values()]
        expected = sorted(
            ({"className": "Account", "meta": m.meta, "selector": m.selector,
              "category": m.category} for m in methods),
            key=lambda m: (m["meta"], m["category"], m["selector"]))
        self.assertEqual(structured, {
            "className": "Account", "methods": expected,
            "page": {"offset": 0, "limit": LIST_LIMIT, "total": len(expected),
                     "nextOffset": None, "atLeast": None}})
        lines = text.splitlines()
        self.assertEqual(lines[:6], ["Account", f"(showing 1-{len(expected)} of {len(expected)})",
                                     "instance side:",
                                     "  accessing", "    balance",
                                     "    owner"])
        self.assertEqual(lines[-4:], ["class side:", "  instance creation",
                                      "    new", "    owner:"])
        self.assertEqual(recorded(self.harness), set())

    @inlineCallbacks
    def test_emptySide(self):
        self.model.defineClass("Bare", "Object")
        self.model.compileMethod("Bare", "create\n\t^self new", "making",
                                 meta=True)
        text, structured = yield checkedCall(self.harness, "list_methods",
                                             className="Bare")
        self.assertEqual(text, "Bare\n(showing 1-1 of 1)\ninstance side:\n  (none)\n"
                               "class side:\n  making\n    create")
        self.assertEqual(structured["methods"], [
            {"className": "Bare", "meta": True, "selector": "create",
             "category": "making"}])


class ResourceTests(TestCase):
    """
    A class's definition and source as MCP resources.
    """

    @inlineCallbacks
    def read(self, uri):
        harness = ToolHarness(("browsing",))
        response = yield harness.legacy.answer(harness.client, Message(
            "request", "resources/read", 1, {"uri": uri}, {}))
        return response

    @inlineCallbacks
    def test_definition(self):
        response = yield self.read("gemstone://class/Account/definition")
        [content] = response["result"]["contents"]
        self.assertIn("subclass: 'Account'", content["text"])
        self.assertEqual(content["uri"], "gemstone://class/Account/definition")

    @inlineCallbacks
    def test_source(self):
        response = yield self.read("gemstone://class/Account/source")
        self.assertIn("deposit:", response["result"]["contents"][0]["text"])

    @inlineCallbacks
    def test_unknownClassNotFound(self):
        response = yield self.read("gemstone://class/NoSuchClass/definition")
        self.assertEqual(response["error"]["code"], -32002)

    def test_listedAsTemplates(self):
        harness = ToolHarness(("browsing",))
        response = self.successResultOf(harness.legacy.answer(
            harness.client,
            Message("request", "resources/templates/list", 1, {}, {})))
        self.assertEqual(
            [t["uriTemplate"] for t in response["result"]["resourceTemplates"]],
            ["gemstone://class/{className}/definition",
             "gemstone://class/{className}/source"])
