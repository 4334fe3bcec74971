"""
The simulated stone's code repository, as one session sees it: symbol
dictionaries, classes, methods and SUnit tests, read and written through the
session's L{gsmcpd.simulator.repository.Transaction} (so views, uncommitted
changes, commit, abort and conflicts apply to code exactly as to data).

A test double, not GemStone.  Template handlers use this API; it is the
contract between them and the model.  Errors a real stone would signal are
raised as L{gsmcpd.simulator.errors.SmalltalkError} (so the envelope answers
them as C{{"error": ...}}).

THIS FILE IS A CONTRACT STUB: every method below must be implemented with
the behaviour its docstring gives; more may be added.
"""

import attr


@attr.s(frozen=True, auto_attribs=True)
class MethodInfo:
    """
    One compiled method.
    """

    className: str
    meta: bool            # class side?
    selector: str
    category: str
    source: str


@attr.s(frozen=True, auto_attribs=True)
class ClassInfo:
    """
    One class (its current version).

    @ivar dictionary: the symbol dictionary that holds it.
    @ivar version: 1 for the first definition; a shape-changing
        redefinition makes the next version (GemStone's class history).
    """

    name: str
    superclassName: str | None
    instVarNames: tuple
    classVars: tuple
    classInstVars: tuple
    poolDictionaries: tuple
    category: str
    comment: str
    dictionary: str
    options: tuple
    version: int


@attr.s(frozen=True, auto_attribs=True)
class TestOutcome:
    """
    One test method run.

    @ivar status: C{"passed"}, C{"failed"} (an assertion failed) or
        C{"error"} (anything else raised).
    @ivar exceptionClass: e.g. C{"TestFailure"}, C{"ZeroDivide"}; None when
        passed.
    @ivar description: the exception's description; None when passed.
    """

    className: str
    selector: str
    status: str
    exceptionClass: str | None = None
    description: str | None = None


class CodeModel:
    """
    The code repository seen through one session's transaction.

    Kernel classes (Object, String, TestCase, ...) live in C{Globals} and are
    visible but are the simulator's own; user classes live in the repository
    and version with it.
    """

    def __init__(self, session):
        raise NotImplementedError()

    # The symbol list (System myUserProfile symbolList)

    def symbolList(self):
        """
        Dictionary names in lookup order: C{UserGlobals}, C{Globals},
        C{Published}, then those added.
        """

    def dictionaryEntries(self, dictionaryName):
        """
        C{{name: ClassInfo or printString}} of one dictionary, or None if no
        dictionary of that name is in the symbol list.
        """

    def addDictionary(self, name):
        """
        Create a SymbolDictionary and append it to the symbol list
        (uncommitted, undone by abort).  Error if the name is taken.
        """

    def removeDictionary(self, name):
        """
        Remove it from the symbol list (uncommitted).  Error if absent.
        """

    # Classes

    def classNamed(self, name):
        """
        The ClassInfo the name resolves to through the symbol list, or None.
        """

    def allClasses(self):
        """
        Every class in every dictionary: a list of ClassInfo, in symbol-list
        order then name order.
        """

    def subclassesOf(self, name):
        """
        Names of the direct subclasses, sorted.
        """

    def defineClass(self, name, superclassName, instVarNames=(), classVars=(),
                    classInstVars=(), poolDictionaries=(), dictionary=None,
                    options=(), category=None):
        """
        Define or redefine a class (GemStone 3.7's
        C{subclass:instVarNames:classVars:classInstVars:poolDictionaries:inDictionary:options:}).

        A redefinition that changes the shape (instance variables, class
        variables, class-instance variables or superclass) makes a new
        version with no methods; otherwise the class is updated in place.

        @return: C{(ClassInfo, shapeChanged)}
        """

    def removeClass(self, name):
        """
        Remove the class from its dictionary (uncommitted).
        """

    def setComment(self, name, comment):
        ...

    def definition(self, name):
        """
        The class-definition expression GemStone's C{Class>>definition}
        answers (3.7 form).
        """

    def fileOut(self, name):
        """
        The topaz file-in text C{Class>>fileOutClass} answers: the
        definition, C{removeallmethods}/C{removeallclassmethods}, then each
        method as C{category:} + C{method:}/C{classmethod:} ... C{%}.
        """

    # Methods

    def methods(self, className, meta=False):
        """
        C{{selector: MethodInfo}} defined in the class itself (not inherited).
        """

    def method(self, className, selector, meta=False):
        """
        The MethodInfo, or None.
        """

    def compileMethod(self, className, source, category="as yet unclassified",
                      meta=False):
        """
        Compile C{source} into the class (replacing a method of the same
        selector).  A syntax error, or a reference to an undeclared variable,
        raises CompileError (number 1001) whose description names the line
        and what the compiler said.

        @return: the MethodInfo.
        """

    def removeMethod(self, className, selector, meta=False):
        ...

    # Search (over every method of every class in the symbol list)

    def implementorsOf(self, selector):
        """
        MethodInfos whose selector is C{selector}.
        """

    def sendersOf(self, selector):
        """
        MethodInfos whose source sends C{selector} (parsed, not grepped).
        """

    def referencesTo(self, globalName):
        """
        MethodInfos whose source refers to the global C{globalName}.
        """

    def scanMethods(self, dictionaryName=None):
        """
        Every MethodInfo, lazily, in scan order (dictionary, class, side,
        selector), optionally only classes of one dictionary.
        """

    # SUnit

    def testClasses(self):
        """
        Names of the TestCase subclasses, sorted.
        """

    def testSelectors(self, className):
        """
        The test selectors (unary, starting with C{test}), sorted, including
        inherited ones.
        """

    def runTest(self, className, selector):
        """
        Run one test method (setUp, the test, tearDown) with the evaluator
        on this session's view: a TestOutcome.
        """
