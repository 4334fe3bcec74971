"""
The debugging toolset's profile_code (L{gsmcpd.tools.profiling}), end to
end on the simulated stone, whose profiler samples at its own sends: the
code's own methods ranked by self and total samples, exactly; nothing of
the envelope it runs in; the same guardrails as execute_code; and no
monitor or sample file left behind, however the code ends.
"""

import gc
import json
import time

import jsonschema
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.testing.simulator.profiling import monitorsOf, sendClock
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.profiling import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    PRINT_LIMIT,
    profileCodeTool,
    row,
    share,
)
from tests.toolharness import ToolHarness
from tests.tools.test_tools_listing import checkedCall

BUSY = (
    "Object subclass: 'Busy' instVarNames: #() classVars: #() classInstVars: #() "
    "poolDictionaries: #() inDictionary: UserGlobals options: #().\n"
    "#('work: n\n\t| sum |\n\tsum := 0.\n\t1 to: n do: [:i | sum := sum + (self step: i)].\n"
    "\t^sum'\n'step: i\n\t^i * 2 + 1')\n"
    "\tdo: [:each | (UserGlobals at: #Busy) compileMethod: each\n"
    "\t\tdictionaries: System myUserProfile symbolList category: 'work'].\n"
    "(UserGlobals at: #Busy) class compileMethod: 'busy: n\n\t^self new work: n'\n"
    "\tdictionaries: System myUserProfile symbolList category: 'work'")

ACCOUNT = (
    "Object subclass: 'Account' instVarNames: #(balance) classVars: #() classInstVars: #() "
    "poolDictionaries: #() inDictionary: UserGlobals options: #().\n"
    "#('init balance := 0' 'balance ^balance' 'deposit: n balance := balance + n'\n"
    "'withdraw: n balance := balance - n')\n"
    "\tdo: [:each | (UserGlobals at: #Account) compileMethod: each\n"
    "\t\tdictionaries: System myUserProfile symbolList category: 'accessing']")

EVERY_SEND = 1_000
"""The shortest interval: the model then samples every send."""


def ranking(found, key):
    return [(each["method"], each["self"], each["total"]) for each in found[key]]


class ProfileTestCase(TestCase):

    stone = staticmethod(lambda: Stone(cpuClock=sendClock, sampleJitter=0))
    """Exact counts: a stone whose CPU clock counts sends, sampling at exact
    intervals."""

    def setUp(self):
        self.harness = ToolHarness(("debugging", "execution"), stone=self.stone())
        return self.harness.call("execute_code", code=BUSY)

    def profile(self, **arguments):
        return checkedCall(self.harness, "profile_code", **arguments)

    @inlineCallbacks
    def leftBehind(self):
        """
        What the profiles of the harness's session left: a monitor still
        sampling, sample files not removed, and whether its SessionTemps
        entry is gone.
        """
        session = self.harness.gem.session
        entryGone = yield self.harness.text("execute_code", code=(
            "(SessionTemps current at: #gsmcpdProfMonitor ifAbsent: [nil]) isNil"))
        return (session.profiler,
                [each for each in monitorsOf(session) if each.hasFile], entryGone)


class DeclarationTests(SynchronousTestCase):

    def test_declared(self):
        """
        profile_code runs arbitrary code, so it is declared as execute_code
        is (not read-only, may run as a task); titled, closed, with a valid
        output schema, and served only in the debugging toolset.
        """
        harness = ToolHarness(("debugging", "execution"))
        tool, execute = harness.tools.get("profile_code"), harness.tools.get("execute_code")
        self.assertEqual((tool.annotations, tool.taskSupport, tool.runsOn),
                         (execute.annotations, execute.taskSupport, execute.runsOn))
        self.assertEqual(tool.title, "Profile Smalltalk")
        self.assertFalse(tool.inputSchema["additionalProperties"])
        self.assertEqual(tool.inputSchema["required"], ["code"])
        jsonschema.Draft202012Validator.check_schema(tool.outputSchema)
        self.assertIsNone(ToolHarness(("execution",)).tools.get("profile_code"))

    def test_rowLabels(self):
        """
        A row reads as a frame of a stack does: executed code, a method, a
        block in one, its receivers' class when not the method's own, or
        what the profiler names that is not a method.
        """
        labels = [row(entry, 4)["method"] for entry in (
            {"self": 1, "total": 2},
            {"className": "Busy class", "selector": "busy:", "block": False,
             "self": 1, "total": 2},
            {"className": "Number", "selector": "to:do:", "block": True,
             "receiverClass": "SmallInteger", "self": 1, "total": 2},
            {"other": "GCI", "self": 1, "total": 1})]
        self.assertEqual(labels, ["Executed Code", "Busy class>>busy:",
                                  "[] in Number>>to:do: [SmallInteger]", "GCI"])
        self.assertEqual((share(1, 3), share(3, 0)), (33.3, 0.0))

    def test_schemaMatchesRows(self):
        """
        A row has exactly the properties the output schema lists.
        """
        rowSchema = profileCodeTool().outputSchema["properties"]["bySelf"]["items"]
        self.assertEqual(set(row({"self": 1, "total": 1}, 1)), set(rowSchema["properties"]))


class RankingTests(ProfileTestCase):

    @inlineCallbacks
    def test_exact(self):
        """
        Sampling every send, the ranking is exact: Busy>>step: and the
        block of Busy>>work: each sent 600 messages themselves, the method
        one (to:do:), the doit two; the loop, the method and the doit hold
        them.
        """
        text, found = yield self.profile(code="Busy new work: 300",
                                         intervalNs=EVERY_SEND)
        self.assertEqual(found["printString"], "90600")
        self.assertEqual(ranking(found, "bySelf"), [
            ("[] in Busy>>work:", 600, 1200), ("Busy>>step:", 600, 600),
            ("Executed Code", 2, 1203), ("Busy>>work:", 1, 1201)])
        self.assertEqual(ranking(found, "byTotal"), [
            ("Executed Code", 2, 1203), ("Busy>>work:", 1, 1201),
            ("[] in Busy>>work:", 600, 1200), ("Number>>to:do: [SmallInteger]", 0, 1200),
            ("Busy>>step:", 600, 600)])
        self.assertEqual((found["methods"], found["intervalNs"]), (5, EVERY_SEND))
        # Every sample but the few the profile's own code took, at a
        # microsecond of CPU a send.
        self.assertTrue(1203 < found["samples"] < 1300, found["samples"])
        self.assertEqual(found["milliseconds"], 1)
        step = found["bySelf"][1]
        self.assertEqual((step["className"], step["selector"], step["block"],
                          step["receiverClass"], step["selfPercent"]),
                         ("Busy", "step:", False, None,
                          round(60000 / found["samples"], 1)))
        self.assertIn("\n\nBy self samples (the method itself running):\n"
                      "  self %  total %  method\n", text)
        self.assertIn(f"    {step['selfPercent']:.1f}     {step['totalPercent']:.1f}"
                      "  Busy>>step:\n", text)

    @inlineCallbacks
    def test_defaultInterval(self):
        """
        At the default interval of 1 ms, a sample every thousand of the
        model's sends.
        """
        _, found = yield self.profile(code="Busy busy: 3000")
        self.assertEqual((found["intervalNs"], found["samples"]), (1_000_000, 12))
        self.assertEqual(found["bySelf"][0]["method"], "[] in Busy>>work:")
        self.assertIn("Busy class>>busy:", [each["method"] for each in found["byTotal"]])

    @inlineCallbacks
    def test_receiverClass(self):
        """
        An inherited method names the class of its receivers.
        """
        _, found = yield self.profile(
            code="#(1 2 3) inject: 0 into: [:sum :each | sum + (Busy new step: each)]",
            intervalNs=EVERY_SEND)
        self.assertIn("SequenceableCollection>>inject:into: [Array]",
                      [each["method"] for each in found["byTotal"]])

    @inlineCallbacks
    def test_limit(self):
        """
        Each ranking holds at most limit rows (default 10), none with no
        samples of its kind.
        """
        _, found = yield self.profile(code="Busy new work: 300", intervalNs=EVERY_SEND,
                                      limit=2)
        self.assertEqual((len(found["bySelf"]), len(found["byTotal"]), found["methods"]),
                         (2, 2, 5))
        _, found = yield self.profile(code="Busy new work: 300", intervalNs=EVERY_SEND)
        self.assertEqual((len(found["bySelf"]), len(found["byTotal"])), (4, 5))
        self.assertEqual(DEFAULT_LIMIT, 10)

    @inlineCallbacks
    def test_noSamples(self):
        """
        Code quicker than one interval has no samples, and says what to do.
        """
        text, found = yield self.profile(code="3 + 4")
        self.assertEqual((found["printString"], found["samples"], found["bySelf"]),
                         ("7", 0, []))
        self.assertIn("No samples: the code ran for less than one interval", text)

    @inlineCallbacks
    def test_largestAnswer(self):
        """
        At the largest limit, with many methods, the answer stays small.
        """
        yield self.harness.call("execute_code", code=(
            "1 to: 60 do: [:i | Busy compileMethod: 'm' , i printString , "
            "' ^3 + 4 + 5 + 6' dictionaries: System myUserProfile symbolList "
            "category: 'many']"))
        result = yield self.harness.call(
            "profile_code", code="| b | b := Busy new. 1 to: 60 do: [:i | "
            "b perform: ('m' , i printString) asSymbol]", intervalNs=EVERY_SEND,
            limit=MAX_LIMIT)
        self.assertEqual(len(result["structuredContent"]["bySelf"]), MAX_LIMIT)
        self.assertLess(len(json.dumps(result)), 50_000)

    @inlineCallbacks
    def test_resultCapped(self):
        """
        The result's printString is cut at PRINT_LIMIT characters, and says so.
        """
        text, found = yield self.profile(code="String new: 5000")
        self.assertEqual((len(found["printString"]), found["totalCharacters"],
                          found["truncated"]), (PRINT_LIMIT, 5002, True))
        self.assertIn(f"[truncated: showing {PRINT_LIMIT} of 5002 characters]", text)


class TruthTests(ProfileTestCase):
    """
    On a stone's own clock (the CPU of the thread running the call), what
    an agent profiling its code sees.
    """

    stone = Stone

    @inlineCallbacks
    def test_equalWork(self):
        """
        A loop sending deposit: and withdraw: equally names both, within
        20 % of each other, and its CPU time is the call's.  (Without
        Python's collector, whose pauses land on one method.)
        """
        gc.disable()
        self.addCleanup(gc.enable)
        yield self.harness.call("execute_code", code=ACCOUNT)
        before = time.thread_time_ns()
        _, found = yield self.profile(code=(
            "| a | a := Account new init. "
            "1 to: 5000 do: [:i | a deposit: 3. a withdraw: 3]. a balance"),
            intervalNs=20_000)
        spent = (time.thread_time_ns() - before) // 1_000_000
        bySelf = {each["method"]: each["self"] for each in found["bySelf"]}
        deposit, withdraw = bySelf["Account>>deposit:"], bySelf["Account>>withdraw:"]
        self.assertLess(abs(deposit - withdraw), 0.2 * max(deposit, withdraw), bySelf)
        self.assertTrue(0.5 * spent <= found["milliseconds"] <= spent,
                        (found["milliseconds"], spent))
        # A sample every 20 µs of that time.
        self.assertTrue(abs(found["samples"] * 0.02 - found["milliseconds"])
                        <= 0.1 * found["milliseconds"] + 2,
                        (found["samples"], found["milliseconds"]))


class OnlyTheCodeTests(ProfileTestCase):
    """
    The profile runs inside the template and the envelope, under kernel
    methods whose totals count every sample: none of them is answered.
    """

    @inlineCallbacks
    def test_noEnvelope(self):
        """
        Code that runs under on:do: and ensure: itself (as the envelope
        does) is followed through them, but the kernel methods the profile
        itself runs in are not answered.
        """
        _, found = yield self.profile(
            code="[[Busy new work: 100] on: ZeroDivide do: [:e | 0]] ensure: [nil]",
            intervalNs=EVERY_SEND)
        methods = sorted(each["method"] for each in found["byTotal"])
        self.assertEqual(methods, [
            "Busy>>step:", "Busy>>work:", "Executed Code", "Number>>to:do: [SmallInteger]",
            "[] in Busy>>work:", "[] in Executed Code", "[] in Executed Code"])


class GuardrailTests(ProfileTestCase):
    """
    profile_code runs user code as execute_code does, and leaves no
    monitor running and no sample file behind.
    """

    @inlineCallbacks
    def test_clean(self):
        yield self.profile(code="Busy new work: 100")
        left = yield self.leftBehind()
        self.assertEqual(left, (None, [], "true"))

    @inlineCallbacks
    def test_error(self):
        """
        An error answers as execute_code's does, with its stack (and no
        frame of the profile's own), and the monitor is stopped and its
        file removed.
        """
        result = yield self.harness.call("profile_code", code="Busy new work: nil")
        error = result["structuredContent"]["error"]
        self.assertTrue(result["isError"])
        self.assertEqual(error["number"], 2010)
        frames = [each["method"] for each in error["stack"]["frames"]]
        self.assertEqual(frames[-2:], ["Busy>>work:", "Executed Code"])
        left = yield self.leftBehind()
        self.assertEqual(left, (None, [], "true"))

    @inlineCallbacks
    def test_compileError(self):
        kind, _ = yield self.harness.error("profile_code", code="3 +")
        self.assertEqual(kind, "compileError")

    @inlineCallbacks
    def test_leftRunning(self):
        """
        A monitor an earlier call left sampling (as a call ended before its
        ensure blocks ran would) is stopped first, and its file removed.
        """
        yield self.harness.call("execute_code", code=(
            "| m | m := ProfMonitor new. m startMonitoring. "
            "SessionTemps current at: #gsmcpdProfMonitor put: m. 3"))
        _, found = yield self.profile(code="Busy new work: 100", intervalNs=EVERY_SEND)
        self.assertEqual(found["bySelf"][0]["method"], "[] in Busy>>work:")
        left = yield self.leftBehind()
        self.assertEqual(left, (None, [], "true"))

    @inlineCallbacks
    def test_sessionNote(self):
        """
        Code that changes the repository leaves the [session] note, as
        execute_code's does.
        """
        result = yield self.harness.call(
            "profile_code", code="UserGlobals at: #Profiled put: 3")
        self.assertIn("[session]", result["content"][-1]["text"])

    @inlineCallbacks
    def test_warning(self):
        """
        A Warning is resumed and noted, as in execute_code.
        """
        result = yield self.harness.call(
            "profile_code", code="(Warning signal: 'deprecated') isNil")
        self.assertIn("[warning] deprecated", [each["text"] for each in result["content"]])
