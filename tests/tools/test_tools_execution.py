"""
Tests for L{gsmcpd.tools.execution}: a value's printString, capped with a
marker that names the cut, and its structured twin.
"""

import hashlib
import json

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.observe.calloutcome import CHANGED_META, COMMITTED_META, DISCARDED_META
from gsmcpd.sessions.notes import COMMITTED_NOTE, MAYBE_COMMITTED_NOTE, MOVED_NOTE
from gsmcpd.tools.execution import MAX_VALUE_CHARACTERS, ExecutionToolset, capped
from tests.toolharness import ToolHarness, checkStructured


def wire(value):
    """
    C{value} as the daemon writes it in a response: compact UTF-8 JSON.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


class CappedTests(SynchronousTestCase):

    def test_withinTheLimit(self):
        self.assertEqual(capped("abc", 3, limit=3), "abc")

    def test_overTheLimitSaysSo(self):
        self.assertEqual(capped("abc", 10, limit=3),
                         "abc...[truncated: showing 3 of 10 characters]")


class ExecuteCodeTests(TestCase):

    def setUp(self):
        self.harness = ToolHarness(("execution",))
        self.tool = ExecutionToolset().tools()[0]

    @inlineCallbacks
    def test_printString(self):
        result = yield self.harness.call("execute_code", code="3 + 4")
        self.assertEqual(result["content"][0]["text"], "7")
        self.assertEqual(result["structuredContent"], {
            "printString": "7", "totalCharacters": 1, "truncated": False})
        checkStructured(self.tool, result["structuredContent"])

    @inlineCallbacks
    def test_largeValueIsCapped(self):
        """
        The cut happens in the stone, so a huge printString never crosses
        the wire, and the model is told how much it is not seeing.
        """
        total = MAX_VALUE_CHARACTERS + 10
        result = yield self.harness.call(
            "execute_code", code="'" + "x" * total + "'")
        structured = result["structuredContent"]
        self.assertEqual((structured["totalCharacters"],
                          structured["truncated"]), (total + 2, True))
        self.assertEqual(len(structured["printString"]), MAX_VALUE_CHARACTERS)
        self.assertTrue(result["content"][0]["text"].endswith(
            f"...[truncated: showing {MAX_VALUE_CHARACTERS} of {total + 2} "
            "characters]"))
        checkStructured(self.tool, structured)

    @inlineCallbacks
    def test_warningIsANote(self):
        """
        A Warning the code signals is resumed; the client reads it after
        the result.
        """
        result = yield self.harness.call(
            "execute_code", code="(Warning signal: 'deprecated') isNil")
        self.assertEqual([each["text"] for each in result["content"]],
                         ["true", "[warning] deprecated"])

    @inlineCallbacks
    def test_compileError(self):
        kind, message = yield self.harness.error("execute_code", code="3 +")
        self.assertEqual(kind, "compileError")


THREE_DEEP = (
    "Object subclass: 'Calculator' instVarNames: #() classVars: #() classInstVars: #() "
    "poolDictionaries: #() inDictionary: UserGlobals options: #().\n"
    "#('outer: n\n\t| doubled |\n\tdoubled := n * 2.\n\t^self middle: doubled'\n"
    "'middle: m\n\t^#(1 2) inject: 0 into: [:sum :each | sum + (self inner: m)]'\n"
    "'inner: k\n\t| zero |\n\tzero := 0.\n\t^k / zero')\n"
    "\tdo: [:each | (UserGlobals at: #Calculator) compileMethod: each\n"
    "\t\tdictionaries: System myUserProfile symbolList category: 'arithmetic'].\n"
    "(UserGlobals at: #Calculator) class compileMethod: 'on: n\n\t^self new outer: n'\n"
    "\tdictionaries: System myUserProfile symbolList category: 'instance creation'")


class StackTests(TestCase):
    """
    A Smalltalk error's result holds the stack where it was signalled, as
    data and as text.
    """

    def setUp(self):
        self.harness = ToolHarness(("execution",))
        return self.harness.call("execute_code", code=THREE_DEEP)

    def failing(self, **arguments):
        return self.harness.call(
            "execute_code", code="| calculator |\ncalculator := Calculator.\n"
            "calculator on: 21", **arguments)

    @inlineCallbacks
    def test_threeSendsDeep(self):
        """
        A ZeroDivide three sends deep answers a frame for each of the three
        methods (and the block between, the kernel's division above, and
        the class-side method below), each with its line, source line,
        self's class and temporaries (not the VM's own), down to the
        executed code; none of the envelope's.
        """
        result = yield self.failing()
        self.assertTrue(result["isError"])
        error = result["structuredContent"]["error"]
        self.assertEqual((error["kind"], error["number"]), ("other", 2026))
        frames = error["stack"]["frames"]
        self.assertEqual([each["method"] for each in frames], [
            "Number>>/", "Calculator>>inner:", "[] in Calculator>>middle:",
            "SequenceableCollection>>inject:into:", "Calculator>>middle:",
            "Calculator>>outer:", "Calculator class>>on:", "Executed Code"])
        self.assertEqual(error["stack"]["omitted"], 0)
        inner, block, middle, outer, creation, doit = (frames[i] for i in (1, 2, 4, 5, 6, 7))
        self.assertEqual(inner, {
            "method": "Calculator>>inner:", "line": 4, "source": "^k / zero",
            "receiverClass": "Calculator",
            "variables": [{"name": "k", "value": "42"},
                          {"name": "zero", "value": "0"}]})
        self.assertEqual(block["variables"], [{"name": "sum", "value": "0"},
                                              {"name": "each", "value": "1"}])
        self.assertEqual((middle["line"], middle["variables"]),
                         (2, [{"name": "m", "value": "42"}]))
        self.assertEqual((outer["line"], outer["source"], outer["variables"]),
                         (4, "^self middle: doubled",
                          [{"name": "n", "value": "21"},
                           {"name": "doubled", "value": "42"}]))
        self.assertEqual((creation["line"], creation["receiverClass"]),
                         (2, "Calculator class"))
        self.assertEqual((doit["line"], doit["source"], doit["receiverClass"]),
                         (3, "calculator on: 21", "UndefinedObject"))
        self.assertNotIn("gsmcp", str(error["stack"]))

    @inlineCallbacks
    def test_text(self):
        """
        The text shows the stack as a GemStone developer reads one: self's
        class, and the method's class where that differs.
        """
        result = yield self.failing()
        lines = result["content"][0]["text"].splitlines()
        self.assertEqual(lines[1:5], [
            "Stack (innermost first):",
            "  SmallInteger (Number)>>/ (line 1): / arg1",
            "      arg1 = 0",
            "  Calculator>>inner: (line 4): ^k / zero"])
        self.assertIn("  Array (SequenceableCollection)>>inject:into: "
                      "(line 1): inject: arg1 into: arg2", lines)

    @inlineCallbacks
    def test_frames(self):
        """
        C{frames} caps how many frames come, saying how many did not; none
        asked, none come.
        """
        result = yield self.failing(frames=2)
        stack = result["structuredContent"]["error"]["stack"]
        self.assertEqual((len(stack["frames"]), stack["omitted"]), (2, 6))
        self.assertIn("...and 6 more frames", result["content"][0]["text"])
        result = yield self.failing(frames=0)
        self.assertNotIn("stack", result["structuredContent"]["error"])

    @inlineCallbacks
    def test_capped(self):
        """
        A variable's printString is cut to 400 bytes of JSON, saying how
        much of it is shown.
        """
        result = yield self.harness.call(
            "execute_code", code="| long |\nlong := String new: 5000.\n1/0")
        doit = result["structuredContent"]["error"]["stack"]["frames"][-1]
        value = doit["variables"][0]["value"]
        shown, _, marker = value.partition("...[truncated: ")
        self.assertEqual(marker, f"showing {len(shown)} of 5002 characters]")
        self.assertLessEqual(len(wire(value)), 400)
        self.assertGreater(len(wire(value)), 340)

    @inlineCallbacks
    def test_printStringThatLoops(self):
        """
        A variable whose printString runs past its second is shown as that
        value's failure, and the stack comes all the same.
        """
        yield self.harness.call("execute_code", code=(
            "SavingsAccount compileMethod: 'printString\n\t[true] whileTrue.\n\t^''x''' "
            "dictionaries: System myUserProfile symbolList category: 'printing'"))
        result = yield self.harness.call(
            "execute_code", code="| slow |\nslow := SavingsAccount new.\n1/0")
        doit = result["structuredContent"]["error"]["stack"]["frames"][-1]
        self.assertEqual(doit["variables"],
                         [{"name": "slow", "value": "(printString took over 1000 ms)"}])

    @inlineCallbacks
    def test_cappedInEscapedBytes(self):
        """
        One frame of 100 temporaries each holding 300 control characters
        (6 bytes each in JSON): its stack is at most 16,000 bytes of JSON,
        counted as the values are added, each value cut within 400 bytes
        saying so, the frame saying how many variables it left out; the
        whole answer stays under 64 KB.
        """
        names = [f"t{i}" for i in range(1, 101)]
        code = (f"| s {' '.join(names)} |\n"
                "s := String with: (Character codePoint: 1).\n"
                "8 timesRepeat: [s := s , s].\n"
                "s := s , (s copyFrom: 1 to: 44).\n"
                + "".join(f"{name} := s.\n" for name in names)
                + "1/0")
        result = yield self.harness.call("execute_code", code=code, frames=50)
        stack = result["structuredContent"]["error"]["stack"]
        self.assertLessEqual(len(wire(stack)), 16_000)
        self.assertLess(len(wire(result)), 64_000)
        doit = stack["frames"][-1]
        self.assertEqual(doit["method"], "Executed Code")
        shown = doit["variables"]
        self.assertEqual(len(shown) + doit["omittedVariables"], 101)
        self.assertGreater(len(shown), 20)
        for each in shown:
            self.assertLessEqual(len(wire(each["value"])), 400)
            self.assertIn("...[truncated: showing ", each["value"])
            self.assertIn(" of 302 characters]", each["value"])
        self.assertIn(f"...and {doit['omittedVariables']} more variables",
                      result["content"][0]["text"])

    @inlineCallbacks
    def test_framesMustBeACount(self):
        for frames in (-1, "30", 2.5):
            kind, _ = yield self.harness.error("execute_code", code="1/0", frames=frames)
            self.assertEqual(kind, "invalidParams", frames)

    @inlineCallbacks
    def test_cappedInBytes(self):
        """
        However many frames are asked for, the stack stops at 16,000
        bytes of JSON, saying how many frames it left out.
        """
        yield self.harness.call("execute_code", code=(
            "(UserGlobals at: #Calculator) compileMethod: 'deep: n\n\t| pad |\n"
            "\tpad := String new: 1000.\n\tn = 0 ifTrue: [^n / 0].\n\t^self deep: n - 1'\n"
            "\tdictionaries: System myUserProfile symbolList category: 'deep'"))
        result = yield self.harness.call("execute_code", code="Calculator new deep: 80",
                                         frames=500)
        stack = result["structuredContent"]["error"]["stack"]
        self.assertLess(len(stack["frames"]), 80)
        self.assertEqual(len(stack["frames"]) + stack["omitted"], 83)
        self.assertLessEqual(len(wire(stack)), 16_000)


def notes(result):
    """
    The text blocks the server added after a result's own.
    """
    return [block["text"] for block in result["content"][1:]]


class CodeThatMovesTheViewTests(TestCase):
    """
    Code that commits, aborts or refreshes moves the session's view; the
    stone says so to the envelope, whatever the code's text, and the
    daemon records a commit like C{commit}'s.  A move is certainly a
    commit only when the last commit's result became #success: these tests
    that commit refresh first (its result is #readOnly), since a session
    that never committed starts at #success in the model.
    """

    def setUp(self):
        self.harness = ToolHarness(("execution", "session"))

    @inlineCallbacks
    def refreshed(self):
        """
        Leave the last commit's result something other than #success.
        """
        yield self.harness.call("refresh")

    @inlineCallbacks
    def status(self):
        result = yield self.harness.call("status")
        return result["structuredContent"]["lastCommit"]

    @inlineCallbacks
    def test_commitIsTheLastCommit(self):
        """
        The commit is in the repository (another session reads it), the
        result says so, and C{status} names it with the code's digest.
        """
        yield self.refreshed()
        code = "UserGlobals at: #Planted put: 7. System commitTransaction"
        result = yield self.harness.call("execute_code", code=code)
        self.assertFalse(result["isError"])
        self.assertEqual(notes(result), [COMMITTED_NOTE])
        self.assertEqual(result["_meta"], {COMMITTED_META: True})
        reader = self.harness.newClient()
        self.assertEqual((yield reader.text(
            "execute_code", code="UserGlobals at: #Planted")), "7")
        last = yield self.status()
        digest = hashlib.sha256(code.encode()).hexdigest()[:12]
        self.assertEqual((last["outcome"], last["changes"]),
                         ("committed", [f"execute_code {digest}"]))

    @inlineCallbacks
    def test_commitSentIndirectly(self):
        """
        Detected from the stone, not the text: a commit sent through
        C{perform:} is recorded all the same.
        """
        yield self.refreshed()
        result = yield self.harness.call(
            "execute_code", code="UserGlobals at: #Planted put: 8. "
            "System perform: ('commit' , 'Transaction') asSymbol")
        self.assertEqual(notes(result), [COMMITTED_NOTE])
        self.assertEqual((yield self.status())["outcome"], "committed")

    @inlineCallbacks
    def test_commitThenAnError(self):
        """
        Code that commits and then fails still committed: its error says
        so, and it is the session's last commit.
        """
        yield self.refreshed()
        result = yield self.harness.call(
            "execute_code",
            code="UserGlobals at: #Planted put: 9. System commitTransaction. "
            "nil foo")
        self.assertTrue(result["isError"])
        self.assertIn(COMMITTED_NOTE, notes(result))
        self.assertEqual((yield self.status())["outcome"], "committed")

    @inlineCallbacks
    def test_abortIsNoCommit(self):
        """
        An abort moves the view only when another session committed since:
        the result says the view moved; no commit is recorded.  (After a
        refresh: what an abort leaves as the last commit's result is not
        public, so the model keeps the last one, #readOnly here; see
        docs/gemstone-fidelity.rst.)
        """
        yield self.harness.call("refresh")
        writer = self.harness.newClient()
        yield writer.call("execute_code", code="UserGlobals at: #Other put: 1."
                          " System commitTransaction")
        result = yield self.harness.call(
            "execute_code", code="System abortTransaction. 3")
        self.assertEqual(notes(result), [MOVED_NOTE])
        self.assertEqual(result["_meta"], {DISCARDED_META: True})
        self.assertIsNone((yield self.status()))

    @inlineCallbacks
    def test_abortAfterSuccessMayHaveCommitted(self):
        """
        The last commit's result was #success before the abort and is
        after it (here: never committed, another session did since): the
        stone cannot tell the abort from a commit, so neither is claimed.
        The result says it may have committed, and it is recorded as a
        commit of unknown outcome, not as one that kept the changes the
        abort discarded.
        """
        yield self.harness.call("execute_code",
                                code="UserGlobals at: #Held put: 1")
        writer = self.harness.newClient()
        yield writer.call("execute_code", code="UserGlobals at: #Other put: 1."
                          " System commitTransaction")
        result = yield self.harness.call(
            "execute_code", code="System abortTransaction. 3")
        self.assertEqual(notes(result), [MAYBE_COMMITTED_NOTE])
        self.assertEqual(result["_meta"], {COMMITTED_META: None})
        self.assertEqual((yield self.status())["outcome"], "unknown")
        reader = self.harness.newClient()
        self.assertEqual((yield reader.text(
            "execute_code", code="UserGlobals at: #Held ifAbsent: [0]")), "0")

    @inlineCallbacks
    def test_commitAfterSuccessMayHaveCommitted(self):
        """
        A commit that finds #success as it was (a second one, here) is
        recorded as unknown too: the stone's answer alone cannot tell it
        from an abort.
        """
        yield self.refreshed()
        for value in (1, 2):
            result = yield self.harness.call(
                "execute_code", code=f"UserGlobals at: #Planted put: {value}."
                " System commitTransaction")
        self.assertEqual(notes(result), [MAYBE_COMMITTED_NOTE])
        self.assertEqual((yield self.status())["outcome"], "unknown")

    @inlineCallbacks
    def test_failedCommitIsNoCommit(self):
        """
        A move whose result is a failure (here #failure: a continue whose
        writes can no longer commit) is never a commit, whatever the result
        was before.
        """
        yield self.harness.call("execute_code",
                                code="UserGlobals at: #Contested put: 1")
        writer = self.harness.newClient()
        yield writer.call("execute_code", code="UserGlobals at: #Contested "
                          "put: 2. System commitTransaction")
        result = yield self.harness.call(
            "execute_code", code="System continueTransaction. 3")
        self.assertEqual(notes(result)[0], MOVED_NOTE)
        self.assertIsNone((yield self.status()))

    @inlineCallbacks
    def test_abortDropsTheJournal(self):
        """
        Code that aborts what the session held drops the changes a commit
        would have named; code that refreshes keeps them, as code that
        commits publishes them.
        """
        journal = self.harness.session.journal
        journal.record("compiled", "Account>>withdraw:", "Account")
        yield self.harness.call("execute_code",
                                code="UserGlobals at: #Kept put: 1")
        yield self.harness.call("execute_code",
                                code="System continueTransaction")
        self.assertEqual(len(journal), 1)
        result = yield self.harness.call(
            "execute_code", code="System abortTransaction. 3")
        self.assertEqual(notes(result), [MOVED_NOTE])
        self.assertEqual(result["_meta"], {DISCARDED_META: True})
        self.assertEqual(len(journal), 0)

    @inlineCallbacks
    def test_refreshIsNoCommit(self):
        """
        Code that refreshes (C{continueTransaction}) after another session
        committed moved the view and committed nothing.
        """
        writer = self.harness.newClient()
        yield writer.call("execute_code", code="UserGlobals at: #Other put: 1."
                          " System commitTransaction")
        result = yield self.harness.call(
            "execute_code", code="System continueTransaction. 3")
        self.assertEqual(notes(result), [MOVED_NOTE])
        self.assertIsNone((yield self.status()))

    @inlineCallbacks
    def test_firstChangeMarked(self):
        """
        Code that leaves a change where the session held none says so in
        its result's C{_meta}, for the audit to name it; code that only
        reads, or changes more of what is held, does not.
        """
        metas = []
        for code in ("3 + 4", "UserGlobals at: #Kept put: 1",
                     "UserGlobals at: #Kept put: 2"):
            result = yield self.harness.call("execute_code", code=code)
            metas.append(result.get("_meta"))
        self.assertEqual(metas, [None, {CHANGED_META: True}, None])

    @inlineCallbacks
    def test_unmovedViewSaysNothing(self):
        result = yield self.harness.call(
            "execute_code", code="System abortTransaction. 3")
        self.assertEqual(notes(result), [])
        self.assertIsNone((yield self.status()))
