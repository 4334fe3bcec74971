"""
The simulated stone's forked processes and bounded waits
(L{gsmcpd.testing.simulator.processes}): what GemStone does, or a loud
L{processes.NotModeled} where the model cannot follow it.
"""

import time

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors, gem, processes
from gsmcpd.testing.simulator.stone import Stone

FORK = "forkAt: Processor activeProcess priority - 1"


class ProcessTests(SynchronousTestCase):

    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login("DataCurator", "swordfish")

    def evaluate(self, source):
        return gem.answer(self.session, source).decode()

    def test_mainPriority(self):
        """
        A GCI call runs at userSchedulingPriority, 15.
        """
        self.assertEqual(self.evaluate("Processor activeProcess priority"), "15")

    def test_forkedRunsWhileWaiting(self):
        """
        A block forked below the active priority runs only once the active
        process waits; its signal ends the wait, which answers true.
        """
        self.assertEqual(self.evaluate(
            f"| s log | s := Semaphore new. log := OrderedCollection new. "
            f"[log add: 'forked'. s signal] {FORK}. log add: 'forking'. "
            f"log add: (s waitForMilliseconds: 5000). log printString"),
            "anOrderedCollection( 'forking', 'forked', true)")

    def test_signalledBeforeTheWait(self):
        """
        A signal no one waits for is kept: the next wait takes it at once.
        """
        self.assertEqual(self.evaluate(
            "| s | s := Semaphore new. s signal. s waitForMilliseconds: 0"), "true")

    def test_loopCutAtTheTimeout(self):
        """
        A forked loop is preempted at the timeout, which answers false; once
        terminated the call ends as usual.
        """
        started = time.monotonic()
        self.assertEqual(self.evaluate(
            f"| s p | s := Semaphore new. p := [[true] whileTrue. s signal] {FORK}. "
            f"(s waitForMilliseconds: 200) printString , ' ' , p terminate class name"),
            "false GsProcess")
        self.assertLess(time.monotonic() - started, 5)

    def test_waitsOutTheTimeout(self):
        """
        Nothing signals: the wait lasts its time and answers false.
        """
        started = time.monotonic()
        self.assertEqual(self.evaluate("Semaphore new waitForMilliseconds: 100"), "false")
        self.assertGreaterEqual(time.monotonic() - started, 0.1)

    def test_forkedErrorsAreItsOwn(self):
        """
        The forked block runs on a stack of its own: the forking process's
        handlers do not take its errors.
        """
        self.assertEqual(self.evaluate(
            f"| s r | s := Semaphore new. "
            f"[[r := 1/0] on: ZeroDivide do: [:e | r := 'own']. s signal] {FORK}. "
            f"[s waitForMilliseconds: 1000] on: ZeroDivide do: [:e | r := 'outer']. r"),
            "own")
        self.assertRaises(processes.NotModeled, self.evaluate,
                          f"| s | s := Semaphore new. [1/0. s signal] {FORK}. "
                          f"[s waitForMilliseconds: 1000] on: ZeroDivide do: [:e | 0]")

    def test_whatTheModelCannotFollow(self):
        """
        A process left to run after the call, a cut one not terminated, one
        forked at the active priority, or a Delay while one is ready: each
        fails loudly, never as a GemStone answer.
        """
        for source in (
                f"[3] {FORK}. 4",
                f"| s | s := Semaphore new. [[true] whileTrue] {FORK}. "
                f"s waitForMilliseconds: 50",
                "[3] forkAt: Processor activeProcess priority",
                f"[3] {FORK}. (Delay forMilliseconds: 1) wait"):
            self.assertRaises(processes.NotModeled, self.evaluate, source)

    def test_workAfterTheSignalIsCut(self):
        """
        The signal readies the waiter above the signalling process, which
        stops there: work it would do after is not done by the model, which
        refuses to end the call with it left.
        """
        self.assertRaises(processes.NotModeled, self.evaluate,
                          f"| s | s := Semaphore new. "
                          f"[s signal. [true] whileTrue] {FORK}. s waitForMilliseconds: 1000")

    def test_priorityRange(self):
        """
        A priority outside 1 to 40 is GemStone's OutOfRange.
        """
        e = self.assertRaises(errors.GciError, self.evaluate, "[3] forkAt: 0")
        self.assertEqual(e.number, errors.OUT_OF_RANGE)
