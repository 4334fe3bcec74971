"""
The debugging toolset's inspect, end to end on the simulated stone: pages
of large collections, path walks, and ids valid only in the session and
view that answered them.
"""

import hashlib
import json

import jsonschema
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.protocol.notes import COMMITTED_NOTE, MOVED_NOTE
from gsmcpd.tools.base import effectiveHints
from gsmcpd.tools.debugging import DEFAULT_LIMIT, MAX_LIMIT, PRINT_LIMIT
from tests.test_tools_listing import checkedCall
from tests.toolharness import ToolHarness

ACCOUNTS = ("Dictionary new at: 'accounts' put: (Array with: (Account owner: 'ann') "
            "with: (Account owner: 'bob') with: (Account owner: 'cy')); yourself")


class InspectTestCase(TestCase):

    def setUp(self):
        self.harness = ToolHarness(("debugging", "session"))

    def inspect(self, harness=None, **arguments):
        return checkedCall(harness or self.harness, "inspect", **arguments)


class SchemaTests(InspectTestCase):

    def test_declared(self):
        """
        inspect is titled, with a closed input schema and a valid output
        schema; it is not read-only (its expression is code that can commit);
        the toolset is served only when named.
        """
        tool = self.harness.tools.get("inspect")
        hints = effectiveHints(tool.annotations)
        self.assertEqual((hints["readOnlyHint"], hints["destructiveHint"]),
                         (False, True))
        self.assertEqual(tool.title, "Inspect object")
        self.assertFalse(tool.inputSchema["additionalProperties"])
        jsonschema.Draft202012Validator.check_schema(tool.outputSchema)
        self.assertIsNone(ToolHarness(("execution",)).tools.get("inspect"))

    @inlineCallbacks
    def test_expressionOrObject(self):
        """
        Exactly one of expression and object is given.
        """
        for arguments in ({}, {"expression": "3", "object": 158001}):
            kind, message = yield self.harness.error("inspect", **arguments)
            self.assertEqual(kind, "invalidParams")
            self.assertIn("an expression or an object id", message)


class ObjectTests(InspectTestCase):

    @inlineCallbacks
    def test_namedVariables(self):
        """
        An object's named instance variables, each with its class, capped
        printString and id.
        """
        text, found = yield self.inspect(expression="Account owner: 'ann'")
        self.assertEqual((found["class"], found["kind"], found["size"]),
                         ("Account", "object", None))
        self.assertEqual(
            [(each["name"], each["value"]["class"], each["value"]["printString"])
             for each in found["variables"]],
            [("balance", "SmallInteger", "0"), ("owner", "String", "'ann'")])
        self.assertIn("  owner: 'ann'  (String, id ", text)
        self.assertIn("valid in this session until the view moves (commit, "
                      "abort, refresh)", text)

    @inlineCallbacks
    def test_aClass(self):
        """
        A class is an object like any other: its printString and class.
        """
        _, found = yield self.inspect(expression="Account")
        self.assertEqual((found["class"], found["printString"], found["kind"]),
                         ("Account class", "Account", "object"))

    @inlineCallbacks
    def test_longPrintStringCapped(self):
        """
        A printString is shown to PRINT_LIMIT characters and marked cut.
        """
        _, found = yield self.inspect(
            expression="| s | s := WriteStream on: String new. "
                       "300 timesRepeat: [s nextPutAll: 'ab']. s contents")
        self.assertEqual((len(found["printString"]), found["truncated"], found["kind"]),
                         (PRINT_LIMIT, True, "string"))
        self.assertEqual(found["elements"], [])

    @inlineCallbacks
    def test_largeCollectionFirstPage(self):
        """
        A 100,000-element collection answers its first page, each element by
        class, id and printString, the collection itself by class and size
        (never its printString), well under 50 KB even at the largest page.
        """
        result = yield self.harness.call("inspect", expression="Array new: 100000")
        self.assertLess(len(json.dumps(result)), 50_000)
        found = result["structuredContent"]
        self.assertEqual((found["printString"], found["size"], len(found["elements"])),
                         ("Array (size 100000)", 100000, DEFAULT_LIMIT))
        self.assertIn("pass offset 25 for more", result["content"][0]["text"])
        result = yield self.harness.call(
            "inspect", expression="| a | a := Array new: 100000. "
            "1 to: 100000 do: [:i | a at: i put: (Array with: i with: i printString)]. a",
            offset=99950, limit=MAX_LIMIT)
        self.assertLess(len(json.dumps(result)), 50_000)
        elements = result["structuredContent"]["elements"]
        self.assertEqual([each["index"] for each in elements], list(range(99951, 100001)))
        self.assertEqual(elements[-1]["value"]["printString"], "Array (size 2)")

    @inlineCallbacks
    def test_dictionaryEntries(self):
        """
        A dictionary's entries come as key and value, paged.
        """
        _, found = yield self.inspect(
            expression="| d | d := Dictionary new. 1 to: 30 do: [:i | d at: i put: i * i]. d",
            offset=10, limit=5)
        self.assertEqual((found["kind"], found["size"], len(found["elements"])),
                         ("dictionary", 30, 5))
        for each in found["elements"]:
            key = int(each["key"]["printString"])
            self.assertEqual(each["value"]["printString"], str(key * key))
            self.assertIsNone(each["index"])


    @inlineCallbacks
    def test_unorderedCollection(self):
        """
        An IdentitySet (or any unordered collection) answers its size and a
        page of its members, without indexes (issue 30: the model could not
        enumerate one, so this path never ran).
        """
        _, found = yield self.inspect(
            expression="| s | s := IdentitySet new. 1 to: 30 do: [:i | s add: i]. s",
            offset=5, limit=5)
        self.assertEqual((found["kind"], found["size"], len(found["elements"])),
                         ("collection", 30, 5))
        members = {int(each["value"]["printString"]) for each in found["elements"]}
        # Which five: GemStone's order is its hash's, so only that they are
        # five distinct members.
        self.assertEqual((len(members), members <= set(range(1, 31))), (5, True))
        self.assertEqual({each["index"] for each in found["elements"]}, {None})


class PathTests(InspectTestCase):

    @inlineCallbacks
    def test_threeLevels(self):
        """
        A path walks a key, an index and an instance variable from the root.
        """
        text, found = yield self.inspect(expression=ACCOUNTS,
                                         path=["accounts", 3, "owner"])
        self.assertEqual((found["printString"], found["path"]),
                         ("'cy'", ["accounts", 3, "owner"]))
        self.assertIn("at path 'accounts' 3 'owner'", text)

    @inlineCallbacks
    def test_fromAnId(self):
        """
        An id from an earlier answer is a root to walk from.
        """
        _, root = yield self.inspect(expression=ACCOUNTS, path=["accounts"])
        second = root["elements"][1]["value"]["object"]
        _, found = yield self.inspect(object=second, path=["owner"])
        self.assertEqual(found["printString"], "'bob'")
        _, again = yield self.inspect(object=root["object"])
        self.assertEqual(again["object"], root["object"])

    @inlineCallbacks
    def test_badStep(self):
        """
        A step that names nothing says which step, in what, how far it got.
        """
        kind, message = yield self.harness.error(
            "inspect", expression=ACCOUNTS, path=["accounts", 4])
        self.assertEqual(kind, "notFound")
        self.assertEqual(message, "Path step 2 of 2: no instance variable or index 4 "
                                  "in this Array")
        kind, message = yield self.harness.error(
            "inspect", expression=ACCOUNTS, path=["accounts", 1, "owner", "size"])
        self.assertEqual(message, "Path step 4 of 4: no instance variable or index "
                                  "'size' in this String")


class IdTests(InspectTestCase):

    @inlineCallbacks
    def test_foreignIdRefused(self):
        """
        Another session's id is refused, by the daemon and, should the
        daemon be told of it, by the stone, which resolves ids only through
        what it holds for this session.
        """
        _, found = yield self.inspect(expression="Account owner: 'ann'")
        other = self.harness.newClient()
        kind, message = yield other.error("inspect", object=found["object"])
        self.assertEqual(kind, "refused")
        self.assertIn("valid only in the session (handle) and view that answered it",
                      message)
        other.session.ledger.recordObjects([found["object"]])
        yield self.inspect(other, expression="3")
        kind, message = yield other.error("inspect", object=found["object"])
        self.assertEqual((kind, message), (
            "refused", f"No object with id {found['object']} in this session's "
            "present view (an id is valid only in the session and view that answered it)"))

    @inlineCallbacks
    def test_staleIdRefused(self):
        """
        After abort (or commit, or refresh) the ids answered before are
        refused, and the stone lets go of what it held for them.
        """
        _, found = yield self.inspect(expression="Account owner: 'ann'")
        yield self.harness.call("abort")
        kind, _ = yield self.harness.error("inspect", object=found["object"])
        self.assertEqual(kind, "refused")
        yield self.inspect(expression="3")
        self.harness.session.ledger.recordObjects([found["object"]])
        kind, message = yield self.harness.error("inspect", object=found["object"])
        self.assertIn("No object with id", message)


    @inlineCallbacks
    def test_staleAfterCodeCommits(self):
        """
        An expression that commits moves the view as commit does: the ids
        answered before are refused, the result says it committed, and it is
        the session's last commit, named with its digest.  (After a
        refresh, whose #readOnly result the commit's #success replaces:
        see L{tests.test_tools_execution}.)
        """
        yield self.harness.call("refresh")
        _, found = yield self.inspect(expression="Account owner: 'ann'")
        expression = ("UserGlobals at: #Inspected put: 1. "
                      "System commitTransaction. 3")
        result = yield self.harness.call("inspect", expression=expression)
        self.assertIn(COMMITTED_NOTE, [each["text"]
                                       for each in result["content"][1:]])
        kind, _ = yield self.harness.error("inspect", object=found["object"])
        self.assertEqual(kind, "refused")
        status = yield self.harness.call("status")
        last = status["structuredContent"]["lastCommit"]
        digest = hashlib.sha256(expression.encode()).hexdigest()[:12]
        self.assertEqual((last["outcome"], last["changes"]),
                         ("committed", [f"inspect {digest}"]))

    @inlineCallbacks
    def test_staleAfterCodeAborts(self):
        """
        Code that aborts uncommitted changes (here: in the same view, no
        other session having committed) moves the view too: the ids
        answered before are refused.
        """
        harness = ToolHarness(("debugging", "session", "execution"))
        yield harness.call("execute_code", code="UserGlobals at: #Held put: 1")
        _, found = yield self.inspect(harness, expression="Account owner: 'ann'")
        result = yield harness.call(
            "execute_code", code="System abortTransaction. 3")
        self.assertIn(MOVED_NOTE, [each["text"]
                                   for each in result["content"][1:]])
        kind, _ = yield harness.error("inspect", object=found["object"])
        self.assertEqual(kind, "refused")

    @inlineCallbacks
    def test_unmovedKeepsIds(self):
        """
        Code that sends an abort with nothing to discard and no newer
        commit leaves the view where it was: the ids still hold.
        """
        harness = ToolHarness(("debugging", "session", "execution"))
        _, found = yield self.inspect(harness, expression="Account owner: 'ann'")
        yield harness.call("execute_code", code="System abortTransaction. 3")
        _, again = yield self.inspect(harness, object=found["object"])
        self.assertEqual(again["object"], found["object"])


FIXED_WITHDRAW = ("withdraw: amount\n\tamount > balance ifTrue: [^self].\n"
                  "\tbalance := balance - amount")

OVERDRAWN = ("| account | account := Account owner: 'ann'. account deposit: 10. "
             "account withdraw: 25. account")


class AgentFlowTests(TestCase):
    """
    What the debugging guide teaches: a failing test, the state it fails
    on inspected, the method read and fixed, the test green.
    """

    @inlineCallbacks
    def test_failInspectFixPass(self):
        harness = ToolHarness(("debugging", "testing", "browsing", "mutation",
                               "session"))
        test = {"className": "AccountTest", "selector": "testWithdrawTooMuch"}
        _, failed = yield checkedCall(harness, "run_test_method", **test)
        self.assertEqual(failed["status"], "failed")
        _, account = yield checkedCall(harness, "inspect", expression=OVERDRAWN)
        _, balance = yield checkedCall(harness, "inspect",
                                       object=account["object"], path=["balance"])
        self.assertEqual(balance["printString"], "-15")
        yield checkedCall(harness, "get_method_source", className="Account",
                          selector="withdraw:")
        yield checkedCall(harness, "compile_method", className="Account",
                          source=FIXED_WITHDRAW)
        _, passed = yield checkedCall(harness, "run_test_method", **test)
        self.assertEqual(passed["status"], "passed")
        _, account = yield checkedCall(harness, "inspect", expression=OVERDRAWN)
        self.assertEqual(account["variables"][0]["value"]["printString"], "10")
