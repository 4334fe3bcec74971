"""
Tests for L{gsmcpd.tools.debugger}: breakpoints and debugged runs on the
simulated stone, through the dispatcher, as issue 32's "What it must show"
lists them.
"""

from twisted.internet import reactor, threads
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.daemon.options import Options
from gsmcpd.daemon.security import READ_ONLY_REASON
from gsmcpd.gci.session import GemSession
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.testing.simulator.errors import COMMITS_DISABLED
from gsmcpd.tools.base import OWN_SESSION
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.debugger import DebuggerToolset
from gsmcpd.tools.templates.render import Template, stringLiteral
from gsmcpd.tools.templates.run import runTemplate
from tests.builders import clientSession
from tests.gci.test_gci import SimulatedStoneMixin
from tests.toolharness import StonePool, ToolHarness
from tests.tools.test_tools_mutation import TOOLSETS, MutationTestCase
from tests.transport.test_modern import ModernTestCase

FIVE = ("five\n\t| x |\n\tx := 3.\n\tx := x + 4.\n\tx := x * 2.\n\t^ x")
"""A five-line method: line 4 adds, line 5 doubles."""

RATIO = "ratio\n\t^ self total / self count"
TOTAL = "total\n\t^ 12"
COUNT = "count\n\t^ 0"
RUN_RATIO = "Probe new ratio"


class DebuggerTestCase(MutationTestCase):

    def setUp(self):
        self.harness = ToolHarness((*TOOLSETS, "debugger"))

    @inlineCallbacks
    def structured(self, name, **arguments):
        result = yield self.succeed(name, **arguments)
        return result["structuredContent"]

    @inlineCallbacks
    def probe(self, *methods):
        """Class Probe, with C{methods}."""
        yield self.succeed("execute_code", code=(
            "Object subclass: 'Probe' instVarNames: #() classVars: #() "
            "classInstVars: #() poolDictionaries: #() inDictionary: "
            "UserGlobals options: #(). nil"))
        for source in methods:
            yield self.succeed("compile_method", className="Probe",
                               source=source, category="probe")


class ToolsTests(DebuggerTestCase):

    def test_needAHandle(self):
        """
        Every tool of the toolset runs only on a session of one's own: a
        paused run and breakpoints belong to it.
        """
        names = [tool.name for tool in self.harness.tools
                 if tool.name.startswith(("breakpoint_", "debug_"))]
        self.assertEqual(len(names), 10)
        for name in names:
            self.assertEqual(self.harness.tools.get(name).runsOn, OWN_SESSION)


class BreakpointTests(DebuggerTestCase):

    @inlineCallbacks
    def test_pauseStepFinish(self):
        """
        A breakpoint at line 4 of a five-line method: debug_run pauses
        there, x holds its value before line 4; a step over moves to line 5
        with x updated; debug_continue finishes with the method's answer.
        """
        yield self.probe(FIVE)
        set = yield self.structured("breakpoint_set", className="Probe",
                                    selector="five", line=4)
        self.assertEqual(set["breakpoint"]["line"], 4)
        run = yield self.structured("debug_run", code="Probe new five")
        self.assertEqual((run["state"], run["reason"]), ("paused", "breakpoint"))
        top = run["frames"][0]
        self.assertEqual((top["method"], top["line"], top["source"]),
                         ("Probe>>five", 4, "x := x + 4."))
        debug = run["debug"]
        x = yield self.structured("debug_eval", debug=debug, code="x")
        self.assertEqual(x["printString"], "3")
        step = yield self.structured("debug_step", debug=debug, kind="over")
        self.assertEqual((step["state"], step["reason"], step["frames"][0]["line"]),
                         ("paused", "step", 5))
        x = yield self.structured("debug_eval", debug=debug, code="x")
        self.assertEqual(x["printString"], "7")
        done = yield self.structured("debug_continue", debug=debug)
        self.assertEqual((done["state"], done["result"]), ("finished", "14"))
        listed = yield self.structured("debug_list")
        self.assertEqual(listed, {"paused": []})


class SteppingTests(DebuggerTestCase):

    @inlineCallbacks
    def test_outThenOverAFrameThenOffTheEnd(self):
        """
        A step out leaves the method for its sender; a step over of frame
        2 runs frame 1 to its end; a step off the end of the code finishes
        the run with its answer, as debug_continue would.
        """
        yield self.probe(FIVE, "outer\n\t| r |\n\tr := self five.\n"
                               "\tr := r + 1.\n\t^ r")
        yield self.succeed("breakpoint_set", className="Probe",
                           selector="five", line=4)
        run = yield self.structured("debug_run",
                                    code="Probe new outer printString")
        out = yield self.structured("debug_step", debug=run["debug"],
                                    kind="out")
        self.assertEqual([(each["method"], each["line"])
                          for each in out["frames"]],
                         [("Probe>>outer", 3), ("Executed Code", 1)])
        over = yield self.structured("debug_step", debug=run["debug"],
                                     kind="over", frame=2)
        self.assertEqual([each["method"] for each in over["frames"]],
                         ["Executed Code"])
        done = yield self.structured("debug_step", debug=run["debug"],
                                     kind="over")
        self.assertEqual((done["state"], done["result"], done["frames"]),
                         ("finished", "'15'", []))
        listed = yield self.structured("debug_list")
        self.assertEqual(listed, {"paused": []})


class ErrorTests(DebuggerTestCase):

    @inlineCallbacks
    def test_fixRestartContinue(self):
        """
        A ZeroDivide two sends deep pauses with the stack (read by
        "debug_frames"), innermost first and none of gsmcpd's frames; after compile_method of the fixed
        method, debug_restart of its frame and debug_continue finish with
        the fixed answer (the run's answer kept by "debug_result").
        """
        yield self.probe(TOTAL, COUNT, RATIO, "check\n\t^ self ratio + 1")
        run = yield self.structured("debug_run", code="Probe new check")
        self.assertEqual((run["state"], run["reason"]), ("paused", "error"))
        self.assertEqual(run["error"]["class"], "ZeroDivide")
        methods = [frame["method"] for frame in run["frames"]]
        self.assertTrue(methods[0].endswith(">>/"), methods)
        self.assertEqual(methods[1:],
                         ["Probe>>ratio", "Probe>>check", "Executed Code"])
        self.assertEqual(run["frames"][1]["source"], "^ self total / self count")
        yield self.succeed("get_method_source", className="Probe",
                           selector="count")
        yield self.succeed("compile_method", className="Probe",
                           source="count\n\t^ 4", category="probe")
        restarted = yield self.structured("debug_restart", debug=run["debug"],
                                          frame=2)
        self.assertEqual(restarted["frames"][0]["method"], "Probe>>ratio")
        done = yield self.structured("debug_continue", debug=run["debug"])
        self.assertEqual((done["state"], done["result"]), ("finished", "4"))


class ExceptionTests(DebuggerTestCase):
    """
    An Error's class and frames are read from the exception signalled:
    the frames that signalled it are hidden, those of a method of an
    exception class are not.
    """

    @inlineCallbacks
    def setUp(self):
        super().setUp()
        yield self.succeed("execute_code", code=(
            "Error subclass: 'ProbeError' instVarNames: #() classVars: #() "
            "classInstVars: #() poolDictionaries: #() inDictionary: "
            "UserGlobals options: #(). nil"))
        for source in ("calc\n\t| a |\n\ta := 3.\n\t^ a + 4",
                       "fail\n\t^ self signal: 'boom'"):
            yield self.succeed("compile_method", className="ProbeError",
                               source=source, category="probe")

    @inlineCallbacks
    def test_breakpointInAnExceptionsMethod(self):
        """
        A breakpoint in a method of an Error subclass pauses with that
        method's frame shown, its temporaries in scope.
        """
        yield self.succeed("breakpoint_set", className="ProbeError",
                           selector="calc", line=4)
        run = yield self.structured("debug_run", code="ProbeError new calc")
        self.assertEqual([frame["method"] for frame in run["frames"]],
                         ["ProbeError>>calc", "Executed Code"])
        a = yield self.structured("debug_eval", debug=run["debug"], code="a")
        self.assertEqual(a["printString"], "3")

    @inlineCallbacks
    def test_userErrorWithItsText(self):
        """
        An Error with its own messageText names its class; the method of
        the exception that signalled it is shown, its signalling is not.
        """
        run = yield self.structured("debug_run", code="ProbeError new fail")
        self.assertEqual(run["error"], {"number": 2318, "class": "ProbeError",
                                        "message": "boom"})
        self.assertEqual([frame["method"] for frame in run["frames"]],
                         ["ProbeError>>fail", "Executed Code"])

    @inlineCallbacks
    def test_testFailure(self):
        """
        A test method's failed assertion pauses as a TestFailure, at the
        assertion.
        """
        run = yield self.structured("debug_run", className="AccountTest",
                                    selector="testWithdrawTooMuch")
        self.assertEqual((run["reason"], run["error"]["class"]),
                         ("error", "TestFailure"))
        self.assertEqual([frame["method"] for frame in run["frames"][:2]],
                         ["TestCase>>assert:equals:",
                          "AccountTest>>testWithdrawTooMuch"])


class HaltTests(DebuggerTestCase):

    @inlineCallbacks
    def test_haltStopped(self):
        """
        A halt pauses; debug_stop ends it, and the session answers 3 + 4.
        """
        run = yield self.structured("debug_run", code="| y | y := 5. y halt. y + 1")
        self.assertEqual((run["state"], run["reason"]), ("paused", "halt"))
        listed = yield self.structured("debug_list")
        self.assertEqual([each["debug"] for each in listed["paused"]],
                         [run["debug"]])
        status = yield self.succeed("status")
        self.assertIn("\npaused debugged runs: 1", status["content"][0]["text"])
        stopped = yield self.structured("debug_stop", debug=run["debug"])
        self.assertEqual(stopped, {"stopped": run["debug"]})
        self.assertEqual(self.harness.gem.paused, frozenset())
        seven = yield self.structured("execute_code", code="3 + 4")
        self.assertEqual(seven["printString"], "7")
        message = yield self.refused("debug_continue", kind="notFound",
                                     debug=run["debug"])
        self.assertIn("none is paused", message)

    @inlineCallbacks
    def test_fourthRefused(self):
        """
        A session holds at most three paused runs: a fourth is refused, and
        the oldest is kept.
        """
        runs = []
        for _ in range(3):
            run = yield self.structured("debug_run", code="nil halt. 1")
            runs.append(run["debug"])
        message = yield self.refused("debug_run", code="nil halt. 2")
        self.assertIn("at most 3", message)
        self.assertEqual(len(self.harness.gem.paused), 3)
        done = yield self.structured("debug_continue", debug=runs[0])
        self.assertEqual(done["result"], "1")


class MoreTests(DebuggerTestCase):

    @inlineCallbacks
    def test_assignmentChangesTheFrame(self):
        """
        debug_eval's assignment to a temporary changes the paused frame:
        the run goes on with the value set.
        """
        yield self.probe("sum\n\t| x y |\n\tx := 3.\n\ty := 4.\n\t^ x + y")
        yield self.succeed("breakpoint_set", className="Probe",
                           selector="sum", line=4)
        run = yield self.structured("debug_run", code="Probe new sum")
        set = yield self.structured("debug_eval", debug=run["debug"],
                                    code="x := 10")
        self.assertEqual(set["printString"], "10")
        done = yield self.structured("debug_continue", debug=run["debug"])
        self.assertEqual(done["result"], "14")

    @inlineCallbacks
    def test_clearedRunsThrough(self):
        """
        After breakpoint_clear the same run does not pause.
        """
        yield self.probe(FIVE)
        yield self.succeed("breakpoint_set", className="Probe",
                           selector="five", line=4)
        listed = yield self.structured("breakpoint_list")
        self.assertEqual([(each["line"], each["stepPoint"])
                          for each in listed["breakpoints"]], [(4, 2)])
        cleared = yield self.structured("breakpoint_clear", className="Probe",
                                        selector="five")
        self.assertEqual(cleared, {"cleared": 1})
        done = yield self.structured("debug_run", code="Probe new five")
        self.assertEqual((done["state"], done["result"]), ("finished", "14"))
        listed = yield self.structured("breakpoint_list")
        self.assertEqual(listed, {"breakpoints": []})

    @inlineCallbacks
    def test_clearOne(self):
        """
        breakpoint_clear with a step point, or a line, clears that one
        breakpoint of the method and leaves its others.
        """
        yield self.probe(FIVE)
        for where in ({"line": 4}, {"stepPoint": 3}, {"line": 5}):
            yield self.succeed("breakpoint_set", className="Probe",
                               selector="five", **where)
        method = {"className": "Probe", "selector": "five"}
        cleared = yield self.structured("breakpoint_clear", stepPoint=3,
                                        **method)
        self.assertEqual(cleared, {"cleared": 1})
        cleared = yield self.structured("breakpoint_clear", line=5, **method)
        self.assertEqual(cleared, {"cleared": 1})
        listed = yield self.structured("breakpoint_list")
        self.assertEqual([(each["line"], each["stepPoint"])
                          for each in listed["breakpoints"]], [(4, 2)])
        run = yield self.structured("debug_run", code="Probe new five")
        self.assertEqual((run["reason"], run["frames"][0]["line"]),
                         ("breakpoint", 4))
        done = yield self.structured("debug_continue", debug=run["debug"])
        self.assertEqual(done["result"], "14")
        message = yield self.refused("breakpoint_clear", kind="invalidParams",
                                     line=4)
        self.assertIn("className and selector", message)

    @inlineCallbacks
    def test_recompiledMethodHasNone(self):
        """
        A method compiled since a breakpoint was set has none (as in
        GemStone): breakpoint_list no longer lists it, and a run does not
        pause there; one in a method left as it was is still listed.
        """
        yield self.probe(FIVE, RATIO)
        yield self.succeed("breakpoint_set", className="Probe",
                           selector="five", line=4)
        yield self.succeed("breakpoint_set", className="Probe",
                           selector="ratio", line=2)
        yield self.succeed("compile_method", className="Probe", meta=True,
                           source="ratio\n\t^ 3 / 4", category="probe")
        yield self.succeed("breakpoint_set", className="Probe", meta=True,
                           selector="ratio", line=2)
        yield self.succeed("get_method_source", className="Probe",
                           selector="five")
        yield self.succeed("compile_method", className="Probe", source=FIVE,
                           category="probe")
        listed = yield self.structured("breakpoint_list")
        self.assertEqual([(each["meta"], each["selector"])
                          for each in listed["breakpoints"]],
                         [(False, "ratio"), (True, "ratio")])
        done = yield self.structured("debug_run", code="Probe new five")
        self.assertEqual((done["state"], done["result"]), ("finished", "14"))

    @inlineCallbacks
    def test_condition(self):
        """
        A conditional breakpoint pauses only where its condition holds.
        """
        yield self.probe("twice: n\n\t| y |\n\ty := n * 2.\n\t^ y",
                         "sum\n\t^ (self twice: 1) + (self twice: 5)")
        yield self.succeed("breakpoint_set", className="Probe",
                           selector="twice:", line=3, condition="n > 2")
        run = yield self.structured("debug_run", code="Probe new sum")
        n = yield self.structured("debug_eval", debug=run["debug"], code="n")
        self.assertEqual(n["printString"], "5")
        done = yield self.structured("debug_continue", debug=run["debug"])
        self.assertEqual(done["result"], "12")

    @inlineCallbacks
    def test_readOnly(self):
        """
        Under --read-only's commit lock (armed at login), a debugged run
        cannot commit: the commit's error pauses it.
        """
        yield runTemplate(self.harness.gem, "disable_commits",
                          {"reason": READ_ONLY_REASON})
        run = yield self.structured(
            "debug_run", code="UserGlobals at: #Kept put: 1. System commitTransaction")
        self.assertEqual((run["state"], run["reason"]), ("paused", "error"))
        self.assertEqual(run["error"]["number"], COMMITS_DISABLED)
        yield self.succeed("debug_stop", debug=run["debug"])
        kept = yield self.structured(
            "execute_code", code="System abortTransaction. UserGlobals at: #Kept ifAbsent: [0]")
        self.assertEqual(kept["printString"], "0")


class SessionEndTests(SimulatedStoneMixin, DebuggerTestCase):
    """
    A paused run ends with its GemStone session (a L{GemSession} on the
    simulated stone's process): the toolset offers no stale run after it.
    """

    @inlineCallbacks
    def setUp(self):
        super().setUp()
        self.startStone()
        self.gem = GemSession(self.library, self.login, reactor, "debug")
        yield self.gem.login()
        self.over = None
        self.addCleanup(lambda: self.over or self.gem.logout())
        self.harness.client = clientSession(self.gem, "0" * 32, "2025-11-25")
        run = yield self.structured("debug_run", code="nil halt. 7")
        self.assertEqual(run["state"], "paused")

    @inlineCallbacks
    def assertNoneLeft(self):
        listed = yield self.structured("debug_list")
        self.assertEqual(listed, {"paused": []})
        kind, text = yield self.harness.error("debug_continue", debug=1)
        self.assertEqual(kind, "notFound")
        self.assertIn("none is paused", text)

    @inlineCallbacks
    def test_loggedOut(self):
        """
        Once the session logged out, no run is paused (its thread is
        over: a call on a stale process would never be answered).
        """
        self.over = self.gem.logout()
        yield self.over
        yield self.assertNoneLeft()

    @inlineCallbacks
    def test_gemDied(self):
        """
        The call that finds the gem dead answers sessionGone; after it no
        run is paused, and none is continued on the dead gem.
        """
        [number] = [each["session"] for each in (yield threads.deferToThread(
            self.control.call, {"op": "sessions"}))["sessions"]]
        yield threads.deferToThread(self.control.call,
                                    {"op": "kill", "session": number})
        gone = yield self.harness.call("execute_code", code="3 + 4")
        self.assertEqual(gone["data"]["kind"], "sessionGone", gone)
        yield self.assertNoneLeft()


class ModernTests(ModernTestCase):
    """
    The 2026-07-28 era: the debugger needs a session of one's own.
    """

    def makePool(self):
        return StonePool()

    def makeHandlers(self):
        return Handlers(ToolCatalog.named(("execution", "session", "debugger")),
                        ServerIdentity())

    @inlineCallbacks
    def test_handleRequired(self):
        result = yield self.tool("debug_run", {"code": "nil halt. 1"})
        self.assertTrue(result["isError"], result)
        handle = yield self.openSession()
        run = yield self.tool("debug_run", {"code": "nil halt. 1",
                                            "session": handle},
                              mcp_param_session=handle)
        self.assertEqual(run["structuredContent"]["state"], "paused", run)
        done = yield self.tool("debug_continue", {
            "debug": run["structuredContent"]["debug"], "session": handle},
            mcp_param_session=handle)
        self.assertEqual(done["structuredContent"]["result"], "1")


class OptionTests(TestCase):

    def test_debugProcesses(self):
        """
        --debug-processes sets how many paused runs a session may hold.
        """
        options = Options()
        options.parseOptions(["--simulated", "--debug-processes", "1",
                              "--toolsets", "execution debugger"])
        config = options.config({})
        (debugger,) = [each for each in config.toolsets
                       if isinstance(each, DebuggerToolset)]
        self.assertEqual(debugger._limit, 1)


class RenderTests(TestCase):

    def test_debuggedRunHoldsTheTextOnlyAsALiteral(self):
        """
        A debugged run's source is its arguments and its body, without the
        envelope; the code reaches it only as a literal.
        """
        code = "x' , (System commitTransaction) printString , '"
        source = Template.named("debug_run").renderDebugged(
            {"code": code, "className": None, "selector": None, "key": 3})
        self.assertTrue(source.startswith('"gsmcp:debug_run"\n'))
        self.assertIn(f"code := {stringLiteral(code)}.\n", source)
        self.assertEqual(source.count("commitTransaction"), 1)
        self.assertNotIn("gsmcpOutcome", source)
        self.assertTrue(source.endswith("] value\n"))
