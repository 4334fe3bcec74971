"""
Tests for the simulated stone's sampling profiler and IdentitySet
(L{gsmcpd.testing.simulator.profiling}, L{gsmcpd.testing.simulator.sets}):
samples taken at the model's own sends, exact on every run, and stricter
than GemStone where GemStone's behaviour is not shown in public.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors, gem
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.profiling import SEND_NS, monitorsOf
from gsmcpd.testing.simulator.stone import Stone

PROBE = (
    "Object subclass: 'Probe' instVarNames: #() classVars: #() classInstVars: #() "
    "poolDictionaries: #() inDictionary: UserGlobals options: #().\n"
    "#('outer ^self inner: 3' 'inner: n ^n + 1 + 2') do: [:each | "
    "(UserGlobals at: #Probe) compileMethod: each dictionaries: System myUserProfile "
    "symbolList category: 'probe']")

PROFILE = ("| m | m := ProfMonitor new. m intervalNs: {interval}. m startMonitoring. "
           "{code}. m stopMonitoring. m gatherResults. "
           "(m results at: 1) collect: [:e | {describe}]")

NAMED = ("| home | home := e cmethod homeMethod. Array with: (home inClass isNil "
         "ifTrue: ['Executed Code'] ifFalse: [home inClass name , '>>' , home selector]) "
         "with: e tally with: e total")


class ProfilingTestCase(SynchronousTestCase):

    def setUp(self):
        self.session = Stone().login("DataCurator", "swordfish")
        self.evaluator = Evaluator(self.session)
        self.evaluate(PROBE)

    def evaluate(self, source):
        return self.evaluator.evaluate(source)

    def refused(self, source):
        e = self.assertRaises(errors.SmalltalkError, self.evaluate, source)
        return e.description

    def profile(self, code, interval=SEND_NS, describe=NAMED):
        """
        Each entry of a profile of C{code}, as C{describe} (a block body
        over C{e}) answers it.
        """
        found = self.evaluate(PROFILE.format(interval=interval, code=code,
                                             describe=describe))
        return [tuple(getattr(each, "text", each) for each in entry.items)
                for entry in found.items]


class SamplingTests(ProfilingTestCase):

    def test_everySend(self):
        """
        At an interval of one send, every send after the start is a sample
        of its sender's stack: a method's tally counts the samples it was
        innermost in, its total those it was on the stack in, once each.
        """
        self.assertEqual(self.profile("Probe new outer"), [
            ("Executed Code", 3, 6), ("Probe>>outer", 1, 3), ("Probe>>inner:", 2, 2)])

    def test_interval(self):
        """
        A longer interval samples every so many sends of the CPU clock.
        """
        entries = self.profile("200 timesRepeat: [Probe new outer]", interval=10 * SEND_NS)
        self.assertEqual(sum(tally for _, tally, _ in entries), 100)

    def test_children(self):
        """
        An entry's children are the entries seen directly above it; nil
        when it called none.
        """
        self.assertEqual(self.profile("Probe new outer", describe=(
            "Array with: (e children isNil ifTrue: [0] ifFalse: [e children size])")),
            [(1,), (1,), (0,)])
        self.assertEqual(self.profile("Probe new outer", describe=(
            "| s | e children isNil ifFalse: [e children do: [:c | "
            "s := c cmethod homeMethod selector]]. Array with: s"))[:2],
            [("outer",), ("inner:",)])

    def test_receiverClass(self):
        """
        An entry is a method and its receiver's class, held in the entry's
        instance variables cmethod and rcvrClass, which inherited methods
        tell apart.
        """
        entries = self.profile(
            "#(1 2) inject: 0 into: [:a :b | a + b]. "
            "(OrderedCollection new add: 1; yourself) inject: 0 into: [:a :b | a + b]",
            describe="Array with: e cmethod homeMethod selector with: "
                     "(e instVarAt: (e class allInstVarNames indexOf: #rcvrClass)) name")
        self.assertEqual([each for each in entries if each[0] == "inject:into:"],
                         [("inject:into:", "Array"), ("inject:into:", "OrderedCollection")])
        self.assertEqual(printString(self.evaluate("ProfMonitorEntry allInstVarNames")),
                         "anArray( #cmethod, #rcvrClass)")

    def test_leftRunning(self):
        """
        A monitor not stopped samples the session's later calls too.
        """
        gem.run(self.session, "| m | m := ProfMonitor new. m intervalNs: 1000. "
                "m startMonitoring. UserGlobals at: #Left put: m")
        gem.run(self.session, "Probe new outer")
        [monitor] = monitorsOf(self.session)
        self.assertEqual(monitor.state, "monitoring")
        self.assertGreater(len(monitor.samples), 4)

    def test_millisecondsToRun(self):
        """
        The model's CPU time is its sends, a microsecond each.
        """
        self.assertEqual(self.evaluate(
            "System millisecondsToRun: [3000 timesRepeat: [3 + 4 + 5]]"), 6)


class StrictnessTests(ProfilingTestCase):
    """
    Where no public source shows what GemStone does, the stricter reading.
    """

    def test_intervalAtLeastOneMicrosecond(self):
        self.assertIn("under 1000 ns", self.refused("ProfMonitor new intervalNs: 999"))

    def test_onceThrough(self):
        """
        A monitor starts once, is stopped before it is gathered, is
        gathered once, and stays unchanged once started.
        """
        for source in (
                "ProfMonitor new stopMonitoring",
                "ProfMonitor new gatherResults",
                "ProfMonitor new startMonitoring; stopMonitoring; startMonitoring",
                "ProfMonitor new startMonitoring; intervalNs: 5000",
                "ProfMonitor new startMonitoring; gatherResults",
                "ProfMonitor new startMonitoring; stopMonitoring; gatherResults; gatherResults"):
            self.refused(source)
            self.session.profiler = None

    def test_resultsNilUntilGathered(self):
        self.assertIsNone(self.evaluate(
            "| m | m := ProfMonitor new. m startMonitoring; stopMonitoring. m results"))

    def test_oneMonitorASession(self):
        self.assertIn("another ProfMonitor", self.refused(
            "ProfMonitor new startMonitoring. ProfMonitor new startMonitoring"))

    def test_fileRemovedOnce(self):
        """
        A monitor's file is removed once, and not while it samples.
        """
        self.refused("ProfMonitor new startMonitoring; removeFile")
        self.session.profiler = None
        self.refused("ProfMonitor new removeFile; removeFile")
        self.evaluate("ProfMonitor new startMonitoring; stopMonitoring; removeFile")
        self.assertEqual([each.hasFile for each in monitorsOf(self.session)],
                         [True, False, False])


class IdentitySetTests(ProfilingTestCase):

    def test_identity(self):
        """
        Membership is identity: equal Strings are two objects, a Symbol or
        a SmallInteger one wherever it appears.
        """
        self.assertEqual(printString(self.evaluate(
            "| s a | s := IdentitySet new. a := 'x' copy. s add: a; add: #y; add: 3. "
            "Array with: (s includes: a) with: (s includes: 'x' copy) "
            "with: (s includes: #y) with: (s includes: 3) with: (s includes: 4)")),
            "anArray( true, false, true, true, false)")

    def test_enumeration(self):
        """
        It enumerates and knows its size (issue 30: inspect's code for
        unordered collections sends both).
        """
        self.assertEqual(printString(self.evaluate(
            "| s n | s := IdentitySet new. s add: #a; add: #a; add: 3. n := 0. "
            "s do: [:each | n := n + 1]. {n. s size}")), "anArray( 2, 2)")
