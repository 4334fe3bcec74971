"""
The session templates: run code, report the session, end transactions.
"""

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.handlers import handler
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.system import describeKey


@handler("execute_code")
def executeCode(ev, args):
    printed = printString(ev.evaluate(args["code"]))
    return {"total": len(printed), "text": printed[:max(args["limit"], 0)]}


@handler("status")
def status(ev, args):
    session = ev.session
    return {"user": session.user, "session": session.number, "stone": session.stone.name,
            "version": session.stone.version, "inTransaction": True}


@handler("commit")
def commit(ev, args):
    transaction = ev.session.transaction
    committed = transaction.commit()
    conflicts = {} if committed else {
        kind: [describeKey(key).text for key in keys]
        for kind, keys in transaction.conflicts.items()}
    return {"committed": committed, "conflicts": conflicts}


@handler("disable_commits")
def disableCommits(ev, args):
    transaction = ev.session.transaction
    armed = transaction.commitsDisabledFor is None
    if armed:
        transaction.commitsDisabledFor = args["reason"]
    return {"armed": armed}


@handler("abort")
def abort(ev, args):
    ev.session.transaction.abort()
    return {"aborted": True}


@handler("refresh")
def refresh(ev, args):
    if not ev.session.transaction.continueTransaction():
        raise errors.continueAfterFailedCommit()
    return {"refreshed": True}
