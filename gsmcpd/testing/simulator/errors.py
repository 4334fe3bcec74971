"""
The errors the simulated stone raises, with GemStone's numbers and wording.

Sources (the keys of the project's GemStone facts, gci-facts.md): MCP = GemTalk's
mcp_server docs, measured on 3.7.x; JADE = Jade's error classes; RP =
reahl-parseltongue's tests against a live stone; GJS = GciForJavaScript
tests; MAGLEV = MagLev's documented topaz output.  A number marked
I{inferred} was not found in a public source; its wording follows GemStone's
"a <Class> occurred (error <n>), <detail>" form.
"""

import attr

# Login (GCI level, fatal).
LOGIN_DENIED = 4051          # RP GciLibrary doctest: invalid user/password
MAX_SESSIONS = 4039          # MCP session-lifetime.md, measured on 3.7.5
NO_SERVER = 4065             # MCP README: "could not find server"
SESSION_GONE = 4100          # JADE: invalid or dead session

# Compiling (GCI level when a template does not compile; inside the
# envelope as CompileError when user code given to #evaluate does not).
COMPILE_ERROR = 1001         # RP, GJS, VSC tests: "a CompileError occurred (error 1001)"

# Run time: Errors, which the envelope's on: Error do: catches.
MESSAGE_NOT_UNDERSTOOD = 2010  # JADE, VSC, MAGLEV
OFFSET_ERROR = 2003          # public GemStone test logs: objErrBadOffsetIncomplete
ZERO_DIVIDE = 2026           # MAGLEV: numErrIntDivisionByZero
KEY_NOT_FOUND = 2023         # inferred (rtErrKeyNotFound; a LookupError)
NOT_FOUND = 2024             # inferred (an element not found; a LookupError)
APPLICATION_ERROR = 2318     # JADE: application error (Object>>error:)
ARGUMENT_TYPE_ERROR = 2094   # MCP/JADE: ArgumentTypeError
ARGUMENT_ERROR = 2718        # inferred: ArgumentError (String/Unicode comparison)
TRANSACTION_ERROR = 2409     # MCP: continueTransaction after a failed commit
COMMITS_DISABLED = 2249      # MCP read-only-user.md: commit by a commit-locked user
NO_PRIVILEGE = 2151          # MCP: stopSession:, one-time passwords, GsFile... without
                             # the privilege or grant (the wording here is inferred)
OUT_OF_RANGE = 2061          # MCP: System cacheName: with 0 or 32+ characters

ALREADY_DECLARED = 1030      # MCP GemStone_Notes.md: "[1030] variable has already been declared"
UNDEFINED_SYMBOL = 1031      # Rowan RowanV2.gs (errorDetails at: 1 = 1031, name at: 5)
APPLICATION_WARNING = 2318   # inferred: a Warning nothing handled, as an application error

# Events: not Errors, so they pass the envelope and end the GCI call.
SOFT_BREAK = 6003            # JADE, MCP: "a Break occurred"
HARD_BREAK = 6004            # JADE
HALT = 6001                  # JADE: pause (halt)

# Not a GemStone number: GemStone's for a second concurrent call on one
# session is not known (facts file section 6); fakegcits.c uses it.
CALL_IN_PROGRESS = 4200


def describe(className, number, detail):
    """
    GemStone's C{Exception>>description} form.
    """
    return f"a {className} occurred (error {number}), {detail}"


@attr.s(auto_exc=True, auto_attribs=True)
class GciError(Exception):
    """
    An error that ends a GCI call: the daemon sees it in its GciErrSType.

    @ivar context: the OOP of the suspended GsProcess, or 0x14 (nil).
    """

    number: int
    message: str
    fatal: bool = False
    reason: str = ""
    context: int = 0x14


@attr.s(auto_exc=True, auto_attribs=True)
class SmalltalkError(Exception):
    """
    An Error signalled by running Smalltalk; template envelopes catch it.

    @ivar className: the exception's class name, e.g. C{"ZeroDivide"}.
    @ivar description: what C{ex description} answers.
    """

    number: int
    className: str
    description: str
    details: object = None
    exception: object = None
    stack: object = attr.ib(default=None, eq=False, repr=False)
    """The evaluator's stack where it was signalled (L{Evaluator.stack}),
    taken by the innermost activation it unwinds."""


def compileError(detail, source, offset, number=COMPILE_ERROR):
    """
    A CompileError naming where in C{source} compiling stopped; its
    C{errorDetails} hold C{(number, offset, detail)} as GemStone's do.
    """
    line = source.count("\n", 0, offset) + 1
    return SmalltalkError(
        COMPILE_ERROR, "CompileError",
        describe("CompileError", COMPILE_ERROR,
                 f"{detail}, near source character {offset + 1} (line {line}), "
                 "says the simulated stone's compiler"),
        details=[(number, offset + 1, detail)])


def messageNotUnderstood(className, selector):
    return SmalltalkError(
        MESSAGE_NOT_UNDERSTOOD, "MessageNotUnderstood",
        describe("MessageNotUnderstood", MESSAGE_NOT_UNDERSTOOD,
                 f"a {className} does not understand  #'{selector}' (simulated stone: "
                 "not in its kernel model, see docs/simulated-stone.rst)"))


def zeroDivide(dividend):
    return SmalltalkError(
        ZERO_DIVIDE, "ZeroDivide",
        describe("ZeroDivide", ZERO_DIVIDE,
                 f"reason:numErrIntDivisionByZero, attempt to divide {dividend} by zero"))


def offsetError(size, index):
    return SmalltalkError(
        OFFSET_ERROR, "OffsetError",
        describe("OffsetError", OFFSET_ERROR,
                 f"reason:objErrBadOffsetIncomplete, max:{size} actual:{index}"))


def keyNotFound(keyPrinted):
    return SmalltalkError(
        KEY_NOT_FOUND, "LookupError",
        describe("LookupError", KEY_NOT_FOUND, f"key {keyPrinted} not found"))


def argumentTypeError(selector):
    return SmalltalkError(
        ARGUMENT_TYPE_ERROR, "ArgumentTypeError",
        describe("ArgumentTypeError", ARGUMENT_TYPE_ERROR, f"an argument of #'{selector}' "
                 "has the wrong class or is out of range"))


def notBoolean(className, selector):
    """
    The receiver of a conditional or loop the compiler inlined is not a
    Boolean: an Error, as GemStone's VM has no message to send instead
    (class and number inferred: no public source gives them).
    """
    return SmalltalkError(
        ARGUMENT_TYPE_ERROR, "ArgumentTypeError",
        describe("ArgumentTypeError", ARGUMENT_TYPE_ERROR,
                 f"reason:rtErrExpectedBoolean, a {className} is not a Boolean: the receiver "
                 f"of an inlined #'{selector}'"))


def notFound(detail):
    return SmalltalkError(NOT_FOUND, "LookupError", describe("LookupError", NOT_FOUND, detail))


def refused(detail):
    """
    An Error a class-definition or method-dictionary change signals (the
    number is that of application errors; GemStone's own is inferred).
    """
    return SmalltalkError(APPLICATION_ERROR, "Error", describe("Error", APPLICATION_ERROR, detail))


def testFailure(detail):
    """
    What a failed SUnit assertion signals: a TestFailure, an Exception but
    not an Error, whose description is the assertion's message.
    """
    return SmalltalkError(APPLICATION_ERROR, "TestFailure", detail)


def continueAfterFailedCommit():
    return SmalltalkError(
        TRANSACTION_ERROR, "TransactionError",
        describe("TransactionError", TRANSACTION_ERROR,
                 "continueTransaction is not allowed after a failed commit; "
                 "abort the transaction first"))


def commitsDisabled(reason):
    return SmalltalkError(
        COMMITS_DISABLED, "TransactionError",
        describe("TransactionError", COMMITS_DISABLED,
                 f"Further commits have been disabled for this session because "
                 f"{reason}. This session must logout."))


def noPrivilege(detail):
    """
    A SecurityError for an operation the session's user may not do; the
    number is GemStone's (MCP), the wording inferred.
    """
    return SmalltalkError(NO_PRIVILEGE, "SecurityError",
                          describe("SecurityError", NO_PRIVILEGE, f"reason:rtErrNoPriv, {detail}"))


def outOfRange(detail):
    return SmalltalkError(OUT_OF_RANGE, "OutOfRange",
                          describe("OutOfRange", OUT_OF_RANGE, detail))


def unicodeComparison():
    """
    C{=} between a String and a Unicode string on a String-configured image
    (GemTalk/mcp_server docs, measured on 3.7.x: an ArgumentError with this
    text; the number is inferred).
    """
    return SmalltalkError(ARGUMENT_ERROR, "ArgumentError", describe(
        "ArgumentError", ARGUMENT_ERROR, "non-Unicode argument disallowed in Unicode comparison"))


def notResumable(className):
    """
    C{resume} sent to an exception that cannot be resumed (an Error); the
    number is that of application errors, GemStone's own is inferred.
    """
    return SmalltalkError(APPLICATION_ERROR, "Error", describe(
        "Error", APPLICATION_ERROR, f"a {className} is not resumable"))


def breakError(hard, context):
    """
    The GCI error a break leaves the interrupted call with.
    """
    number = HARD_BREAK if hard else SOFT_BREAK
    kind = "hard" if hard else "soft"
    return GciError(number, describe("Break", number, f"A {kind} break was received."),
                    reason="break", context=context)


def simulatorLimit(detail):
    """
    What the simulated stone will not do, though GemStone might try: the
    call ends with the simulator's own error (GCI error 0, reason
    C{simulatorLimit}), which no handler takes, never a GemStone error.
    """
    return GciError(0, f"simulated stone: {detail}", reason="simulatorLimit")


def shouldNotImplement(className, selector):
    """
    A message a class inherits but refuses (Interval's C{at:put:}): an
    Error, as GemStone's C{shouldNotImplement:} signals one; the number is
    that of application errors (inferred).
    """
    return SmalltalkError(APPLICATION_ERROR, "Error", describe(
        "Error", APPLICATION_ERROR, f"{className} should not implement #{selector}"))


def invariant(className):
    """
    Changing a literal of compiled code, which GemStone makes invariant
    (the stricter reading where public sources are silent; class and
    number inferred, docs/gemstone-fidelity.rst).
    """
    return SmalltalkError(APPLICATION_ERROR, "Error", describe(
        "Error", APPLICATION_ERROR,
        f"the {className} is invariant (a literal of compiled code); send it copy first"))
