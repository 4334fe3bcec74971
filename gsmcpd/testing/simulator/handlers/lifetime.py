"""
The session-lifetime templates: how far behind a view is, moving it, the
repository's commit-record backlog, naming a gem, one-time passwords and
stopping another session's gem.
"""

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.handlers import handler


@handler("session_state")
def sessionState(ev, args):
    session = ev.session
    backlog = session.stone.configurationAt("StnSignalAbortCrBacklog")
    if not isinstance(backlog, int) or isinstance(backlog, bool) or backlog <= 0:
        backlog = None
    return {"commitsBehind": session.transaction.commitsBehind,
            "signalAbortBacklog": backlog, "session": session.number}


@handler("continue_transaction")
def continueTransaction(ev, args):
    if not ev.session.transaction.continueTransaction():
        raise errors.continueAfterFailedCommit()
    return {"continued": True}


@handler("name_gem")
def nameGem(ev, args):
    session = ev.session
    session.stone.nameGem(session, args.get("name"))
    return {"name": session.stone.cacheNameOf(session.number)}


@handler("mint_onetime_password")
def mintOnetimePassword(ev, args):
    session = ev.session
    return {"password": session.stone.mintOnetimePassword(
        session, args.get("userId"), args.get("seconds"))}


@handler("stop_session")
def stopSession(ev, args):
    number = args.get("session")
    if not isinstance(number, int) or isinstance(number, bool):
        raise errors.argumentTypeError("stopSession:")
    ev.session.stone.stopSession(ev.session, number)
    return {"stopped": True}


@handler("backlog_state")
def backlogState(ev, args):
    backlog, pinned = ev.session.stone.backlogState()
    return {"backlog": backlog, "oldestPinnedBy": pinned}
