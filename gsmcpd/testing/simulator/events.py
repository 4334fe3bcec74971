"""
Asynchronous events a stone sends a session: a signalled abort, a lost
object table, a signal from another session, a request to finish its
transaction.  GemStone reports each to the GCI client as an error of the
call that runs when it arrives (numbers and texts: C{gcierr.ht}, 3.7.5, as
vendored by GemTalk/Jasper).

GemStone sends most of them only in states the model's sessions never
reach: 6009 and 3031 "while running outside of a transaction" (the model's
sessions are always in one: C{#autoBegin} only), 6009, 6010 and 6012 only
after the session enabled them (the model has no C{enableSignaled...Error}
selector).  So the tests deliver them through the CONTROL back door
(C{event}), as if the session were in that state: a daemon must cope with
what a real stone sends a session whose client ran C{System
transactionMode: #manualBegin} or enabled a signal.  The model is stricter
than GemStone in one way: no Smalltalk handler sees the event (it reaches
the GCI whatever the code handles).
"""

import attr

from gsmcpd.testing.simulator import errors


@attr.s(frozen=True, auto_attribs=True)
class Event:
    """
    One kind of event: its error number, the class GemStone signals it as,
    its text, and whether it revokes the session's view.
    """

    number: int
    className: str
    text: str
    losesView: bool = False


EVENTS = {
    "signalAbort": Event(
        6009, "TransactionBacklog",
        "the stone requested this session, running outside of a transaction, "
        "to abort (RT_ERR_SIGNAL_ABORT)"),
    "lostOtRoot": Event(
        3031, "RepositoryViewLost",
        "while running outside of a transaction the stone requested this "
        "session to abort, it did not respond in the allocated time, so the "
        "stone revoked its access to the object table (ABORT_ERR_LOST_OT_ROOT)",
        losesView=True),
    "sessionSignal": Event(
        6010, "InterSessionSignal",
        "the session received a signal from another GemStone session "
        "(RT_ERR_SIGNAL_GEMSTONE_SESSION)"),
    "finishTransaction": Event(
        6012, "TransactionBacklog",
        "the stone requested this session to commit, abort or continue its "
        "transaction (RT_ERR_SIGNAL_FINISH_TRANSACTION)"),
}
"""By the name the CONTROL request gives.  The classes of 3031 and 6012 are
inferred (GemStone 3.x lists C{RepositoryViewLost} and
C{TransactionBacklog} among its notifications)."""


def error(name, context, detail=""):
    """
    The GCI error event C{name} ends the running call with.

    @param detail: a signal's serial number, value and message.
    """
    event = EVENTS[name]
    text = f"{event.text}: {detail}" if detail else event.text
    return errors.GciError(event.number, errors.describe(
        event.className, event.number, text), reason="asyncEvent",
        context=context)
