"""
SUnit for the simulated stone: TestCase, TestSuite, TestResult and
TestResource.  The assertions and building a suite are Python; running is
Smalltalk (L{RUNNING}), so a template's handlers meet SUnit's own.

A failed assertion signals C{TestFailure}, which is an Exception but not an
Error, so C{on: Error do:} in a test does not swallow it; whatever else a
test signals makes it an error.  A test named in C{expectedFailures} counts
as passed when it fails and as failed when it passes, and a suite sets its
resources up before its tests and resets them after.
"""

from gsmcpd.testing.simulator import errors, exceptions
from gsmcpd.testing.simulator.kernel import (
    CLASSES,
    classMethod,
    method,
    smalltalkMethods,
    text,
    truth,
)
from gsmcpd.testing.simulator.objects import (
    Array,
    Instance,
    OrderedCollection,
    String,
    Symbol,
    UserClass,
    equal,
    printString,
)

ASSERTION_FAILED = "Assertion failed"


def _require(condition, description):
    # SUnit's assert: is "aBoolean ifFalse: [...]", inlined.
    if truth(condition, "ifFalse:") is False:
        raise errors.testFailure(description)


@method("TestCase", "assert:")
def _assert(ev, receiver, condition):
    _require(condition, ASSERTION_FAILED)
    return receiver


@method("TestCase", "assert:description:")
def _assertDescription(ev, receiver, condition, description):
    _require(condition, text(description))
    return receiver


@method("TestCase", "assert:description:resumable:")
def _assertResumable(ev, receiver, condition, description, resumable):
    """
    A failed assertion that, when C{resumable}, signals a
    ResumableTestFailure the test goes on after.
    """
    if resumable is True and condition is False:
        exceptions.signalNew(ev, "ResumableTestFailure", errors.APPLICATION_ERROR,
                             text(description), text(description))
        return receiver
    return _assertDescription(ev, receiver, condition, description)


@method("TestCase", "deny:")
def _deny(ev, receiver, condition):
    _require(not condition if isinstance(condition, bool) else condition, ASSERTION_FAILED)
    return receiver


@method("TestCase", "assert:equals:")
def _assertEquals(ev, receiver, actual, expected):
    _require(equal(actual, expected),
             f"Expected {printString(expected)} but was {printString(actual)}.")
    return receiver


@method("TestCase", "signalFailure:")
def _signalFailure(ev, receiver, description):
    raise errors.testFailure(text(description))


# --------------------------------------------------------- building suites

@classMethod("TestCase", "testSelectors")
def _testSelectors(ev, receiver):
    return Array([Symbol(each) for each in ev.code.testSelectors(receiver.name)])


def _suite(name, tests):
    return Instance(CLASSES["TestSuite"], {
        "tests": OrderedCollection(tests), "resources": None, "name": String(name)})


@classMethod("TestCase", "suite")
def _classSuite(ev, receiver):
    """
    A suite of one test per test selector; the abstract TestCase's holds
    the suites of its subclasses.
    """
    if receiver is CLASSES["TestCase"]:
        return _suite("TestCase", [ev.send(UserClass(name), "suite", [])
                                   for name in ev.code.subclassesOf("TestCase")])
    return _suite(receiver.name, [ev.send(receiver, "selector:", [Symbol(each)])
                                  for each in ev.code.testSelectors(receiver.name)])


@classMethod("TestCase", "selector:")
def _selector(ev, receiver, selector):
    case = ev.send(receiver, "new", [])
    case.slots["testSelector"] = Symbol(text(selector))
    return case


@classMethod("TestSuite", "named:")
def _named(ev, receiver, name):
    return _suite(text(name), [])


RUNNING = {
    ("TestCase", "class"): [
        "isAbstract\n\t^self name == #TestCase",
        "resources\n\t^#()",
    ],
    ("TestCase", "instance"): [
        "selector\n\t^testSelector",
        "setUp",
        "tearDown",
        "expectedFailures\n\t^#()",
        "shouldPass\n\t^(self expectedFailures includes: testSelector) not",
        "resources\n\t^self class resources",
        "performTest\n\tself perform: testSelector",
        # A handler, as SUnit's executeShould:inScopeOf: has: a resumable
        # exception (a Warning) must meet it before any handler outside.
        "should: aBlock raise: anExceptionalEvent\n"
        "\t^self assert: ([aBlock value. false] on: anExceptionalEvent do: [:ex | ex return: true])",
        "shouldnt: aBlock raise: anExceptionalEvent\n"
        "\t^self assert: ([aBlock value. true] on: anExceptionalEvent do: [:ex | ex return: false])",
        "runCase\n\t[self setUp.\n\tself performTest] ensure: [self tearDown]",
        "run: aResult\n\taResult runCase: self",
        "run\n\t| result |\n\tresult := TestResult new.\n\tself run: result.\n\t^result",
    ],
    ("TestSuite", "instance"): [
        "tests\n\t^tests ifNil: [tests := OrderedCollection new]",
        "addTest: aTest\n\t^self tests add: aTest",
        "addTests: aCollection\n\taCollection do: [:each | self addTest: each]",
        "resources\n\t| all |\n\tall := OrderedCollection new.\n"
        "\tself tests do: [:each | each resources do: [:resource |\n"
        "\t\t(all includes: resource) ifFalse: [all add: resource]]].\n\t^all",
        "run\n\t| result |\n\tresult := TestResult new.\n\tself run: result.\n\t^result",
        "run: aResult\n\tself resources do: [:each | each isAvailable].\n"
        "\t[self tests do: [:each | each run: aResult]]\n"
        "\t\tensure: [TestResource resetResources: self resources]",
    ],
    ("TestResult", "class"): [
        "failure\n\t^TestFailure",
        "error\n\t^Error",
    ],
    ("TestResult", "instance"): [
        "failures\n\t^failures ifNil: [failures := OrderedCollection new]",
        "errors\n\t^errors ifNil: [errors := OrderedCollection new]",
        "passed\n\t^passed ifNil: [passed := OrderedCollection new]",
        "addPass: aTestCase\n\t^self passed add: aTestCase",
        "addFailure: aTestCase\n\t^self failures add: aTestCase",
        "addError: aTestCase\n\t^self errors add: aTestCase",
        "runCase: aTestCase\n\t[aTestCase runCase.\n\tself addPass: aTestCase]\n"
        "\t\ton: self class failure , self class error\n"
        "\t\tdo: [:ex | ex sunitAnnounce: aTestCase toResult: self]",
        "runCount\n\t^self passed size + self failures size + self errors size",
        "passedCount\n\t^(self passed select: [:each | each shouldPass]) size\n"
        "\t\t+ ((self failures , self errors) reject: [:each | each shouldPass]) size",
        "failureCount\n\t^(self failures select: [:each | each shouldPass]) size\n"
        "\t\t+ (self passed reject: [:each | each shouldPass]) size",
        "errorCount\n\t^(self errors select: [:each | each shouldPass]) size",
    ],
    ("TestFailure", "instance"): [
        "sunitAnnounce: aTestCase toResult: aResult\n"
        "\taResult addFailure: aTestCase.\n\tself sunitExitWith: false",
    ],
    ("Error", "instance"): [
        "sunitAnnounce: aTestCase toResult: aResult\n"
        "\taResult addError: aTestCase.\n\tself sunitExitWith: false",
    ],
    ("AbstractException", "instance"): [
        "sunitExitWith: aValue\n"
        "\tself isResumable ifTrue: [self resume: aValue] ifFalse: [self return: aValue]",
    ],
    ("TestResource", "class"): [
        "current\n\t^current ifNil: [current := self new setUp; yourself]",
        "isAvailable\n\t^self current isAvailable",
        "reset\n\tcurrent ifNotNil: [:resource |\n\t\tcurrent := nil.\n\t\tresource tearDown]",
        "resetResources: aCollection\n\taCollection reverseDo: [:each | each reset]",
        "resources\n\t^#()",
    ],
    ("TestResource", "instance"): [
        "setUp",
        "tearDown",
        "isAvailable\n\t^true",
    ],
}
"""SUnit's running, in Smalltalk: the simulator's own wording of the
protocol GemStone 3.7's SUnit has (TestResult>>runCase: announcing the
exception to the result, a resumable failure resumed by C{sunitExitWith:}
and so counted as a failure and a pass: GemTalk/Grail's GrailTestResult.gs
describes 3.7.5's)."""

for (_className, _side), _sources in RUNNING.items():
    smalltalkMethods(_className, "Running", *_sources, side=_side)
