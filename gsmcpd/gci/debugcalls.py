"""
A debugged run's GCI calls, as a L{gsmcpd.gci.session.GemSession} makes
them: started with the debug and interpreted flags, a run may stop (a
breakpoint, a halt, an Error nothing handled, a step done), and its
GsProcess then stays suspended in the gem until it is continued, stepped
or cleared.  So a stop is an answer here (L{Stopped}), not a failure: the
session must not clear the process as it clears a failed call's.
"""

from collections.abc import Callable

import attr

from gsmcpd.gci.errors import GciError

DEBUG_FLAGS = 0x1 | 0x20
"""GCI_PERFORM_FLAG_ENABLE_DEBUG | GCI_PERFORM_FLAG_INTERPRETED: a process
must start interpreted to be steppable, and each step or continue passes
the same flags so that it stays so (GemTalk/Jasper's debug queries)."""


@attr.s(frozen=True, auto_attribs=True)
class Stopped:
    """
    A debugged run stopped: its GsProcess's OOP and the GCI error that
    says why (6005 a breakpoint or a step, 6001 a halt, 6003 a soft break,
    else the Error's number).
    """

    process: int
    number: int
    message: str


def stopOrFinish(call: Callable[[], object]) -> Stopped | None:
    """
    On the session's thread: make C{call} (a debug execute or continue);
    L{None} when the run finished, a L{Stopped} when it stopped.  A break
    or a fatal error still fails the call (the session then clears a
    broken run's process, as any failed call's).
    """
    try:
        call()
    except GciError as e:
        process = e.suspendedProcess
        if process is None or e.fatal or e.isBreak:
            raise
        return Stopped(process, e.number, e.message)
    return None
