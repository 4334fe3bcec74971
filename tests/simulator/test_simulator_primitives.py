"""
A model primitive's Python error is never shown as a GemStone error (issue
30, item 1): every kernel primitive that takes arguments is called with
arguments of the wrong kind, and each call either answers, fails with a
GemStone error, or fails as a Python exception (what the socket reports as
C{simulatorBug}); never with a C{doesNotUnderstand} of a selector no
GemStone source has, which is a model's guard dressed as GemStone's error.
"""

import re

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.kernel import CLASSES, SmalltalkMethod, classOf
from gsmcpd.testing.simulator.objects import Instance
from gsmcpd.testing.simulator.stone import Stone
from tests.knownnames import readEntries
from tests.tools.test_template_selectors import KNOWN_NAMES

SAMPLES = [
    "Object new", "true", "nil", "$a", "3", "2 raisedTo: 70", "1.5", "1/2", "#(1 2) copy",
    "OrderedCollection new add: 1; yourself", "#(2 1) asSortedCollection", "'ab' copy", "#ab",
    "'ab' encodeAsUTF8", "1 to: 3", "Set new add: 1; yourself", "IdentitySet new add: 1; yourself",
    "Bag new add: 1; yourself", "Dictionary new at: 1 put: 2; yourself",
    "KeyValueDictionary new", "IdentityDictionary new", "SymbolDictionary new", "1 -> 2",
    "ReadStream on: #(1 2)", "WriteStream on: String new", "ReadWriteStream on: String new",
    "Date today", "DateAndTime now", "[:x | x]", "Error new", "System myUserProfile",
    "System myUserProfile symbolList", "ClassOrganizer new", "UserGlobals", "Error, ZeroDivide",
    "AllUsers", "Object", "Object class", "(Object compiledMethodAt: #yourself)",
    "TestCase new", "TestSuite new", "TestResult new", "GsCurrentSession currentSession",
    "Semaphore new", "Transcript",
]
"""Receivers, by the source that makes them: each primitive runs on the
first one whose class has it."""

UNSWEPT = {
    "ExecBlock": "its primitives run the block (value:...), which answers",
    "GsProcess": "the model makes none but the running one's frames",
    "ProfMonitor": "profiling runs the block it is given",
    "ProfMonitorEntry": "made only by a profile",
    "GsNMethod": "only ActiveMethods of a running stack have frames",
    "Delay": "waiting is the wrong kind of test here",
    "TestResource": "instances come from SUnit's own running",
    "SessionTemps": "SessionTemps is modelled by another part",
}
"""Classes whose primitives the sweep does not call, with why."""

WRONG = (None, 3, "instance")

MODEL_NAMES = {"_generality", "_isSmallInteger"}
"""Private selectors GemStone's own primitives fail with for a wrong
argument, which the model signals the same way."""


def knownSelectors():
    return {entry.name for path in KNOWN_NAMES for entry in readEntries(path)
            if entry.kind == "selector"} | MODEL_NAMES


class SweepTests(SynchronousTestCase):

    def setUp(self):
        self.evaluator = Evaluator(Stone().login("DataCurator", "swordfish"))
        self.receivers = [self.evaluator.evaluate(source) for source in SAMPLES]

    def receiverFor(self, behavior, meta):
        if meta:
            return CLASSES[behavior.name.removesuffix(" class")]
        return next((each for each in self.receivers
                     if classOf(each).includesBehavior(behavior)), None)

    def primitives(self):
        for cls in CLASSES.values():
            for behavior, meta in ((cls, False), (cls.metaclass, True)):
                for selector, function in behavior.methods.items():
                    if isinstance(function, SmalltalkMethod) or ":" not in selector \
                            and selector[0].isalpha():
                        continue
                    yield cls, behavior, meta, selector, function

    def test_sweep(self):
        known, dressed, missed = knownSelectors(), [], []
        for cls, behavior, meta, selector, function in self.primitives():
            if cls.name in UNSWEPT:
                continue
            receiver = self.receiverFor(behavior, meta)
            if receiver is None:
                missed.append(f"{behavior.name}>>{selector}")
                continue
            count = selector.count(":") or 1
            for kind in WRONG:
                value = Instance(CLASSES["Object"]) if kind == "instance" else kind
                try:
                    function(self.evaluator, receiver, *[value] * count)
                except errors.SmalltalkError as e:
                    found = re.search(r"#'([^']*)'", e.description)
                    if e.className == "MessageNotUnderstood" and found \
                            and found.group(1) not in known:
                        dressed.append((f"{behavior.name}>>{selector}", found.group(1)))
                except Exception:
                    # A Python error: the socket answers it as simulatorBug.
                    pass
        self.assertEqual((dressed, missed), ([], []))
