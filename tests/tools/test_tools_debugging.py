"""
The debugging toolset's inspect, end to end on the simulated stone: pages
of large collections, path walks, and ids valid only in the session and
view that answered them.
"""

import hashlib
import json
import time

import jsonschema
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.sessions.notes import COMMITTED_NOTE, MOVED_NOTE
from gsmcpd.tools.debugging import DEFAULT_LIMIT, MAX_LIMIT, PAGE_BYTES, PRINT_LIMIT
from tests.toolharness import ToolHarness, effectiveHints
from tests.tools.test_tools_listing import checkedCall

FAILING_PRINT = ("SavingsAccount compileMethod: 'printString\n\t^1/0' dictionaries: "
                 "System myUserProfile symbolList category: 'printing'. ")
"""Makes every SavingsAccount's printString raise ZeroDivide."""

LOOPING_PRINT = ("SavingsAccount compileMethod: 'printString\n\t[true] whileTrue.\n\t^''x''' "
                 "dictionaries: System myUserProfile symbolList category: 'printing'. ")
"""Makes every SavingsAccount's printString loop."""


def wire(value):
    """
    C{value} as the daemon writes it in a response: compact UTF-8 JSON.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


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
    def test_printStringCappedInEscapedBytes(self):
        """
        The cap counts bytes as the JSON holds them: a printString of
        control characters (6 bytes each once escaped) shows as many as fit
        in PRINT_LIMIT bytes, and says how many of how many.
        """
        text, found = yield self.inspect(
            expression="| s | s := String with: (Character codePoint: 1). "
                       "6 timesRepeat: [s := s , s]. s")
        self.assertEqual((found["printSize"], found["truncated"], found["printFailed"]),
                         (66, True, False))
        self.assertLessEqual(len(wire(found["printString"])) - 2, PRINT_LIMIT)
        self.assertEqual(found["printString"], "'" + "\x01" * 19)
        self.assertIn("… (20 of 66 characters)", text)

    @inlineCallbacks
    def test_printStringCutToTheByte(self):
        """
        A quote or a backslash takes 2 bytes, a non-ASCII character its
        UTF-8 length: the cut keeps as many characters as fit, to within
        the one that did not.
        """
        _, found = yield self.inspect(
            expression="| s | s := '\"\\é€😀'. 4 timesRepeat: [s := s , s]. s")
        shown = len(wire(found["printString"])) - 2
        self.assertLessEqual(shown, PRINT_LIMIT)
        self.assertGreater(shown, PRINT_LIMIT - 4)
        self.assertEqual(found["printSize"], 82)

    @inlineCallbacks
    def test_printStringThatRaises(self):
        """
        An object whose printString raises is answered all the same: the
        error shown as that value's printString, marked failed, its
        variables inspected as usual.
        """
        text, found = yield self.inspect(expression=FAILING_PRINT + "SavingsAccount new")
        self.assertEqual((found["class"], found["printString"], found["printFailed"]),
                         ("SavingsAccount", "(printString failed: ZeroDivide)", True))
        self.assertEqual([each["name"] for each in found["variables"]],
                         ["balance", "owner", "rate"])
        _, found = yield self.inspect(
            expression=FAILING_PRINT + "Array with: SavingsAccount new with: 3")
        self.assertEqual(
            [(each["value"]["printString"], each["value"]["printFailed"])
             for each in found["elements"]],
            [("(printString failed: ZeroDivide)", True), ("3", False)])

    @inlineCallbacks
    def test_printStringThatLoops(self):
        """
        A printString that runs past its second is cut there and shown as
        that value's failure; after three such, no more are tried.  The
        inspection answers all the same, in about three seconds.
        """
        started = time.monotonic()
        _, found = yield self.inspect(
            expression=LOOPING_PRINT + "(Array new: 5) collect: [:each | SavingsAccount new]")
        self.assertEqual(
            [(each["value"]["printString"], each["value"]["printFailed"])
             for each in found["elements"]],
            [("(printString took over 1000 ms)", True)] * 3
            + [("(printString not tried: 3 took over 1000 ms)", True)] * 2)
        self.assertLess(time.monotonic() - started, 30)

    @inlineCallbacks
    def test_controlCharacterKeysStayUnder50KB(self):
        """
        A dictionary whose keys and values are long runs of control
        characters: the page ends before 50 KB on the wire, counted as each
        entry is added, and says where the next page begins.
        """
        result = yield self.harness.call("inspect", limit=MAX_LIMIT, expression=(
            "| d s | d := Dictionary new. s := String with: (Character codePoint: 2). "
            "8 timesRepeat: [s := s , s]. "
            "1 to: 100 do: [:i | d at: s , i printString put: s , s]. d"))
        response = {"jsonrpc": "2.0", "id": 1, "result": result}
        self.assertLess(len(wire(response)), 50_000)
        found = result["structuredContent"]
        shown = len(found["elements"])
        self.assertGreater(shown, 10)
        self.assertLess(shown, 100)
        for each in found["elements"]:
            for part in ("key", "value"):
                self.assertTrue(each[part]["truncated"])
                self.assertLessEqual(len(wire(each[part]["printString"])) - 2, PRINT_LIMIT)
        self.assertIn(f"pass offset {shown} for more", result["content"][0]["text"])

    @inlineCallbacks
    def test_manyLongVariables(self):
        """
        An object whose named instance variables alone would take the page
        past its bytes: those that fit are shown, the rest counted.
        """
        names = [f"v{i}" for i in range(1, 151)]
        quotes = '"' * 300
        result = yield self.harness.call("inspect", expression=(
            f"Object subclass: 'Wide' instVarNames: #({' '.join(names)}) "
            "classVars: #() classInstVars: #() poolDictionaries: #() "
            "inDictionary: UserGlobals options: #(). "
            "(UserGlobals at: #Wide) compileMethod: 'fill: s\n\t"
            + "".join(f"{name} := s. " for name in names)
            + "^self' dictionaries: System myUserProfile symbolList category: 'x'. "
            f"(UserGlobals at: #Wide) new fill: '{quotes}'"))
        self.assertLess(len(wire({"jsonrpc": "2.0", "id": 1, "result": result})), 50_000)
        found = result["structuredContent"]
        shown = len(found["variables"])
        self.assertGreater(shown, 50)
        self.assertEqual(shown + found["omittedVariables"], 150)
        self.assertIn(f"(and {150 - shown} more instance variables: the page is full)",
                      result["content"][0]["text"])

    @inlineCallbacks
    def test_fullPageOfSmallValues(self):
        """
        A hundred small entries still make one page under PAGE_BYTES.
        """
        result = yield self.harness.call("inspect", limit=MAX_LIMIT, expression=(
            "| d | d := Dictionary new. 1 to: 150 do: [:i | d at: i put: i * i]. d"))
        self.assertEqual(len(result["structuredContent"]["elements"]), MAX_LIMIT)
        self.assertLess(len(wire(result)), PAGE_BYTES)

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

    @inlineCallbacks
    def pages(self, expression, size, limit):
        """
        The elements of the object C{expression} answers, page by page of
        C{limit} from its id (one object, so one order), each page checked
        to be as long as it should be.
        """
        _, found = yield self.inspect(expression=expression, limit=limit)
        pages = [found["elements"]]
        for offset in range(limit, size, limit):
            _, page = yield self.inspect(object=found["object"], offset=offset,
                                         limit=limit)
            self.assertEqual((page["size"], page["offset"]), (size, offset))
            pages.append(page["elements"])
        self.assertEqual([len(each) for each in pages],
                         [min(limit, size - offset) for offset in range(0, size, limit)])
        return [each for page in pages for each in page]

    @inlineCallbacks
    def test_sequencePages(self):
        """
        Pages of a sequence follow on from each other, each element at its
        own index, to the last.
        """
        elements = yield self.pages(
            "(1 to: 11) asArray collect: [:i | i * 10]", 11, 4)
        self.assertEqual([(each["index"], each["value"]["printString"]) for each in elements],
                         [(i, str(i * 10)) for i in range(1, 12)])

    @inlineCallbacks
    def test_dictionaryPages(self):
        """
        Pages of a dictionary follow on from each other: every entry once,
        its key as key and its value as value.
        """
        elements = yield self.pages(
            "| d | d := Dictionary new. 1 to: 23 do: [:i | d at: i put: i * i]. d", 23, 5)
        entries = sorted((int(each["key"]["printString"]), each["value"]["printString"])
                         for each in elements)
        self.assertEqual(entries, [(i, str(i * i)) for i in range(1, 24)])

    @inlineCallbacks
    def test_unorderedPages(self):
        """
        Pages of an unordered collection follow on from each other in its
        own order: every member once.
        """
        elements = yield self.pages(
            "| s | s := IdentitySet new. 1 to: 23 do: [:i | s add: i]. s", 23, 5)
        self.assertEqual(sorted(int(each["value"]["printString"]) for each in elements),
                         list(range(1, 24)))


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

    @inlineCallbacks
    def test_inheritedVariables(self):
        """
        An object's variables include those its class inherits, first, and
        a path walks an inherited variable as well as the class's own.
        """
        subject = "(SavingsAccount owner: 'ann') rate: 3; yourself"
        _, found = yield self.inspect(expression=subject)
        self.assertEqual(
            [(each["name"], each["value"]["printString"]) for each in found["variables"]],
            [("balance", "0"), ("owner", "'ann'"), ("rate", "3")])
        for step, shown in (("owner", "'ann'"), ("rate", "3"), ("balance", "0")):
            _, found = yield self.inspect(expression=subject, path=[step])
            self.assertEqual(found["printString"], shown, step)

    @inlineCallbacks
    def test_indexBounds(self):
        """
        A path index walks from 1 to the size: the first and last are
        walked, 0, a negative index or one past the end refused as naming
        nothing, never sent to the collection; a String's characters are
        not walked at all.
        """
        for index, owner in ((1, "'ann'"), (3, "'cy'")):
            _, found = yield self.inspect(expression=ACCOUNTS, path=["accounts", index, "owner"])
            self.assertEqual(found["printString"], owner)
        for index in (0, -1, 4):
            kind, message = yield self.harness.error(
                "inspect", expression=ACCOUNTS, path=["accounts", index])
            self.assertEqual((kind, message), (
                "notFound", f"Path step 2 of 2: no instance variable or index {index} "
                "in this Array"))
        kind, message = yield self.harness.error(
            "inspect", expression=ACCOUNTS, path=["accounts", 1, "owner", 1])
        self.assertEqual((kind, message), (
            "notFound", "Path step 4 of 4: no instance variable or index 1 in this String"))


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
        see L{tests.tools.test_tools_execution}.)
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
