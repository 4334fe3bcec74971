"""
SUnit for the simulated stone: the kernel class C{TestCase}'s assertions,
and running one test the way C{TestCase>>run} does.

A failed assertion signals C{TestFailure}, which is an Exception but not an
Error, so C{on: Error do:} in a test does not swallow it; whatever else a
test signals makes it an error.
"""

from gsmcpd.testing.simulator import errors, system
from gsmcpd.testing.simulator.kernel import classOf, method, text
from gsmcpd.testing.simulator.model import TestOutcome
from gsmcpd.testing.simulator.objects import UserClass, equal, printString

ASSERTION_FAILED = "Assertion failed"


def _require(condition, description):
    if condition is False:
        raise errors.testFailure(description)
    if condition is not True:
        raise errors.messageNotUnderstood(classOf(condition).name, "ifFalse:")


@method("TestCase", "setUp", "tearDown")
def _hook(ev, receiver):
    return receiver


@method("TestCase", "assert:")
def _assert(ev, receiver, condition):
    _require(condition, ASSERTION_FAILED)
    return receiver


@method("TestCase", "assert:description:")
def _assertDescription(ev, receiver, condition, description):
    _require(condition, text(description))
    return receiver


@method("TestCase", "deny:")
def _deny(ev, receiver, condition):
    _require(not condition if isinstance(condition, bool) else condition, ASSERTION_FAILED)
    return receiver


@method("TestCase", "assert:equals:")
def _assertEquals(ev, receiver, actual, expected):
    _require(equal(actual, expected),
             f"Expected {printString(expected)} but was {printString(actual)}.")
    return receiver


@method("TestCase", "fail")
def _fail(ev, receiver):
    raise errors.testFailure(ASSERTION_FAILED)


@method("TestCase", "signalFailure:")
def _signalFailure(ev, receiver, description):
    raise errors.testFailure(text(description))


def _raises(ev, block, exceptionClass):
    """
    Whether running C{block} signals C{exceptionClass}; anything else it
    signals passes on.
    """
    try:
        ev.value(block)
    except errors.SmalltalkError as e:
        if not system.signalledIsKindOf(e, exceptionClass):
            raise
        return True
    return False


@method("TestCase", "should:raise:")
def _shouldRaise(ev, receiver, block, exceptionClass):
    _require(_raises(ev, block, exceptionClass), ASSERTION_FAILED)
    return receiver


@method("TestCase", "shouldnt:raise:")
def _shouldntRaise(ev, receiver, block, exceptionClass):
    _require(not _raises(ev, block, exceptionClass), ASSERTION_FAILED)
    return receiver


def runTest(ev, className, selector):
    """
    Run C{className>>selector} on a fresh instance, between C{setUp} and
    C{tearDown} (which runs whatever happened): a L{TestOutcome}.
    """
    if className not in ev.code.testClasses():
        raise errors.notFound(f"no TestCase subclass named {className}")
    try:
        test = ev.send(UserClass(className), "new", [])
        try:
            ev.send(test, "setUp", [])
            ev.send(test, selector, [])
        finally:
            ev.send(test, "tearDown", [])
    except errors.SmalltalkError as e:
        status = "failed" if e.className == "TestFailure" else "error"
        return TestOutcome(className, selector, status, e.className, e.description)
    return TestOutcome(className, selector, "passed")
