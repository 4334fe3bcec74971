"""
Running one template on a GemStone session: the one place a
L{GciError} becomes something a caller can act on.

L{runTemplate} fires with a L{TemplateAnswer}, or fails with one of the
outcomes in L{gsmcpd.tools.templates.outcomes}: L{ToolError} (a Smalltalk
error with its kind, a refusal, a missing subject, a GemStone error that
left the session usable), L{ResultOverLimit}, L{CallBroken} or L{GemGone}.
"""

import json
from collections.abc import Callable
from typing import TypeVar

import attr
from twisted.internet.defer import Deferred, fail
from twisted.python.failure import Failure

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.interfaces import IGemSession
from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.tools.context import NULL_CONTEXT, ICallContext
from gsmcpd.tools.templates.nearest import withNearest
from gsmcpd.tools.templates.outcomes import (
    STILL,
    CallBroken,
    GemGone,
    ResultOverLimit,
    ToolError,
    ViewMove,
    errorKindOf,
    eventMove,
    eventNote,
    stackText,
)
from gsmcpd.tools.templates.render import TEMPLATE_PACKAGE, Template

MAX_RESULT_BYTES = 1 << 20
"""The largest UTF-8 result a template may answer."""

_T = TypeVar("_T")

WITHDRAWN = "the call was ended before it started"

_MARKERS = {"gsmcpRefused": "refused", "gsmcpNotFound": "notFound"}
"""What a template answers when it refuses, or cannot find its subject;
beside a subject not found, C{gsmcpNear} may hold the name sought and the
names of its kind that could be near it (L{withNearest})."""


@attr.s(frozen=True, auto_attribs=True)
class TemplateAnswer:
    """
    A template's value, whether the session now holds uncommitted changes,
    and the Warnings the call resumed (their descriptions, as notes for the
    client: a Warning does not end a call).

    @ivar moved: how the session's view moved while it ran (L{ViewMove}).
    """

    value: object
    needsCommit: bool
    warnings: tuple[str, ...] = ()
    moved: ViewMove = STILL


def runTemplate(gem: IGemSession, name: str, arguments: dict[str, object],
                context: ICallContext = NULL_CONTEXT,
                package: str = TEMPLATE_PACKAGE,
                frames: int = 0) -> Deferred[TemplateAnswer]:
    """
    Render template C{name} (from C{package}) with C{arguments} and run it
    on C{gem}, as the GemStone call C{context} may end.  A Smalltalk error
    brings up to C{frames} frames of its stack (L{ToolError} C{details}).

    Callbacks on the call's own L{Deferred} rather than a generator: this
    runs for every GemStone call, and a generator's suspension and resumption
    cost more than the rest of it.

    @return: a L{Deferred} firing with a L{TemplateAnswer}.
    """
    try:
        source = Template.named(name, package).render(arguments,
                                                      MAX_RESULT_BYTES, frames)
    except Exception:
        return fail()
    return context.start(gem.execute, source, MAX_RESULT_BYTES
                         ).addCallbacks(_answered, _failed)


def runDebugged(context: ICallContext, call: Callable[..., Deferred[_T]],
                *args: object) -> Deferred[_T]:
    """
    Make a debugged run's GCI call, C{call(*args)} (an L{IGemSession}'s
    C{executeDebug}, C{continueDebug} or C{clearDebug}), as the GemStone
    call C{context} may end, its failure one of the outcomes.
    """
    return context.start(call, *args).addErrback(_failed)


def _failed(failure: Failure) -> Failure:
    """
    A GemStone call that failed, as one of the outcomes.
    """
    e = failure.value
    if isinstance(e, GciError):
        if e.fatal:
            raise GemGone(e.number, e.reason)
        if e.isBreak:
            raise CallBroken(e.number)
        lost = eventMove(e.number)
        # A lost view took the changes it held with it.
        raise ToolError("other", f"{e}{eventNote(e.number)}",
                        {"number": e.number},
                        False if lost.moved else None, lost)
    if isinstance(e, CallWithdrawn):
        raise ToolError("other", WITHDRAWN)
    return failure


def _answered(answer: bytes) -> TemplateAnswer:
    """
    The envelope's document as a L{TemplateAnswer}, or the outcome its
    error or marker names.
    """
    document = json.loads(answer.decode("utf-8"))
    needsCommit = document["needsCommit"]
    moved = ViewMove.of(document)
    error = document.get("error")
    if error is not None:
        number = error.get("number") or 0
        lost = eventMove(number)
        if lost.moved:
            needsCommit, moved = False, moved.then(lost)
        failure = ResultOverLimit if error.get("class") == "gsmcpd" \
            else ToolError
        message = (f"{error.get('class')} (GemStone error {number}): "
                   f"{error.get('message')}{eventNote(number)}")
        details = {"number": number}
        stack = error.get("stack")
        if stack is not None:
            details["stack"] = stack
            message = f"{message}\n{stackText(stack)}"
        raise failure(errorKindOf(number), message, details, needsCommit,
                      moved)
    value = document["result"]
    if isinstance(value, dict):
        for marker, kind in _MARKERS.items():
            if marker in value:
                message = value[marker]
                if "gsmcpNear" in value:
                    message = withNearest(message, *value["gsmcpNear"])
                raise ToolError(kind, message, needsCommit=needsCommit,
                                moved=moved)
    return TemplateAnswer(value, needsCommit, tuple(document.get("notes", ())),
                          moved)
