"""
Tests for the simulated stone's sampling profiler and IdentitySet
(L{gsmcpd.testing.simulator.profiling}, L{gsmcpd.testing.simulator.sets}):
samples taken at the model's own sends, by the CPU of the thread running
the call (in proportion to where it went) or, for exact counts, by a clock
of sends; and stricter than GemStone where GemStone's behaviour is not shown
in public.
"""

import gc
import threading
import time

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors, gem
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.profiling import (
    DEFAULT_JITTER,
    SEND_NS,
    monitorsOf,
    sendClock,
    threadCPU,
)
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


ACCOUNT = (
    "Object subclass: 'Account' instVarNames: #(balance) classVars: #() "
    "classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals options: #().\n"
    "#('init balance := 0' 'deposit: n balance := balance + n' "
    "'withdraw: n balance := balance - n') do: [:each | (UserGlobals at: #Account) "
    "compileMethod: each dictionaries: System myUserProfile symbolList category: 'x']")
"""Two methods doing the same work."""

EQUAL_WORK = "[:a | 1 to: {n} do: [:i | a deposit: 3. a withdraw: 3]] value: Account new init"


class ProfilingTestCase(SynchronousTestCase):

    clock = staticmethod(sendClock)
    jitter = 0

    def setUp(self):
        self.session = Stone(cpuClock=self.clock, sampleJitter=self.jitter).login(
            "DataCurator", "swordfish")
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
        self.assertGreater(sum(monitor.samples.values()), 4)

    def test_millisecondsToRun(self):
        """
        By the clock of sends, the CPU time is the sends, a microsecond each.
        """
        self.assertEqual(self.evaluate(
            "System millisecondsToRun: [3000 timesRepeat: [3 + 4 + 5]]"), 6)

    def test_aliased(self):
        """
        By the clock of sends, a loop whose sends divide the interval is
        sampled at one point of it, every time: why a stone samples by
        the CPU time its work takes instead.
        """
        self.evaluate(ACCOUNT)
        entries = self.profile(EQUAL_WORK.format(n=2000), interval=1000 * SEND_NS)
        self.assertEqual(sorted(name for name, tally, _ in entries if tally),
                         ["Account>>withdraw:"])

    def test_jitter(self):
        """
        With the stone's jitter, intervals stray from the one asked for, so
        the same loop shares its samples out by where the sends went, the
        same on every run; as many in all.
        """
        self.session = Stone(cpuClock=sendClock).login("DataCurator", "swordfish")
        self.evaluator = Evaluator(self.session)
        self.evaluate(ACCOUNT)
        runs = [self.profile(EQUAL_WORK.format(n=4000), interval=20 * SEND_NS)
                for _ in range(2)]
        self.assertEqual(runs[0], runs[1])
        tallies = {name: tally for name, tally, _ in runs[0] if name.startswith("Account")}
        deposit, withdraw = tallies["Account>>deposit:"], tallies["Account>>withdraw:"]
        self.assertLess(abs(deposit - withdraw), 0.2 * max(deposit, withdraw), tallies)
        # About one sample every 20 of the loop's 16,000 sends.
        samples = sum(tally for _, tally, _ in runs[0])
        self.assertTrue(720 <= samples <= 880, samples)


class ThreadClockTests(ProfilingTestCase):
    """
    A stone's own clock: the CPU time of the thread running the call.
    """

    clock = staticmethod(threadCPU)
    jitter = DEFAULT_JITTER

    def setUp(self):
        super().setUp()
        self.evaluate(ACCOUNT)

    def test_acrossCalls(self):
        """
        A session's clock goes on across its calls' threads, as a gem's
        CPU adds up: it never goes back, nor jumps to another thread's.
        """
        readings = [threadCPU(self.session)]
        for _ in range(3):
            thread = threading.Thread(
                target=lambda: readings.append(threadCPU(self.session)))
            thread.start()
            thread.join()
            sum(range(20_000))
            readings.append(threadCPU(self.session))
        self.assertEqual(readings, sorted(readings))
        self.assertLess(readings[-1] - readings[0], 1_000_000_000)

    def test_proportion(self):
        """
        Samples fall where the CPU went: two methods doing equal work, sent
        alternately, hold as many samples within 20 %.  (Without Python's
        collector: a collection's pause lands on whichever method runs, as
        on a gem, and a run this short cannot average it out.)
        """
        gc.disable()
        self.addCleanup(gc.enable)
        entries = {name: tally for name, tally, _ in self.profile(
            EQUAL_WORK.format(n=4000), interval=20_000)}
        deposit, withdraw = entries["Account>>deposit:"], entries["Account>>withdraw:"]
        self.assertGreater(deposit + withdraw, 200)
        self.assertLess(abs(deposit - withdraw), 0.2 * max(deposit, withdraw),
                        entries)

    def test_millisecondsToRun(self):
        """
        millisecondsToRun: answers the CPU time the block took, as the
        thread measured it around the whole call.
        """
        before = time.thread_time_ns()
        answered = self.evaluate(
            "System millisecondsToRun: [" + EQUAL_WORK.format(n=3000) + "]")
        spent = (time.thread_time_ns() - before) // 1_000_000
        self.assertTrue(0.7 * spent - 2 <= answered <= spent, (answered, spent))

    def test_samplesFollowTime(self):
        """
        A monitor takes a sample every interval of the CPU time, however
        many sends that is: the samples times the interval is the time.
        """
        found = self.evaluate(
            "| m | m := ProfMonitor new. m intervalNs: 100000. "
            "Array with: (System millisecondsToRun: [m startMonitoring. "
            + EQUAL_WORK.format(n=3000) + ". m stopMonitoring]) with: "
            "((m gatherResults; results) at: 1)")
        milliseconds, entries = found.items
        samples = sum(each.tally for each in entries.items)
        self.assertTrue(abs(samples / 10 - milliseconds) <= 0.1 * milliseconds + 2,
                        (samples, milliseconds))


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
