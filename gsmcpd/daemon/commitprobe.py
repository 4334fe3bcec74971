"""
C{gsmcpd check --templates --commit-probe}: the C{commit} template down
both its paths, which only a commit can reach, so it is the one part of the
check that commits, and only when asked.

Two sessions of the probe's own (not the check's, which is commit-locked)
each bind C{UserGlobals at: #GsmcpdCommitProbe}, a binding any user may add
to and remove from their own C{UserGlobals}, from views where it is free.
A commits first: the success path.  B commits second: its binding changed
the dictionary A's commit changed since B's view, a C{Write-Write}
conflict (C{System transactionConflicts}: B's write set meets the objects
commits since its view wrote; GsDevKit/glassdb
C{GemStoneSystemTransactionConflictsDictionary.md}): the conflict path,
whose report the daemon reads.  B aborts; A
removes the binding and commits; a fresh session checks it is gone, so the
stone is left as it was.  It refuses to bind a name already bound.
"""

from typing import Any

from twisted.internet.defer import Deferred, inlineCallbacks, succeed

from gsmcpd.daemon import Inline, shapes
from gsmcpd.daemon.checksteps import COMMITS_DISABLED, Step
from gsmcpd.daemon.templatecheck import Recording, Stop, TemplateCheck
from gsmcpd.gci.library import GciLibrary
from gsmcpd.gci.session import GemSession, LoginParameters
from gsmcpd.tools.journal import ChangeJournal
from gsmcpd.tools.ledger import ReadLedger
from gsmcpd.tools.templates.run import runTemplate

PROBE = "GsmcpdCommitProbe"
BIND = (f"(UserGlobals includesKey: #{PROBE}) ifTrue: [self error: "
        f"'{PROBE} is already bound in UserGlobals: gsmcpd check binds it "
        f"only when free']. UserGlobals at: #{PROBE} put: 'gsmcpd check "
        "--commit-probe'")
UNBIND = f"UserGlobals removeKey: #{PROBE}"
ABSENT = (f"(UserGlobals includesKey: #{PROBE}) ifTrue: [self error: "
          f"'{PROBE} is still bound in UserGlobals; remove it with "
          f"UserGlobals removeKey: #{PROBE}, then commit']. true")

NOT_PROBED = ("commit's success and conflict paths were not run (they "
              "commit, then remove, a probe): gsmcpd check --templates "
              "--commit-probe runs them")

CONFLICT = {"count": int, "names": [str]}
"""One kind of conflict as the commit tool reads it."""
CANNOT_COMMIT = {COMMITS_DISABLED: "this user cannot commit (its UserProfile "
                 "disables commits), so commit's paths cannot be run as it"}


def _commit(committed: bool, path: str, **kwargs: Any) -> Step:
    return Step(
        "commit", tool=False, shape={"committed": bool, "conflicts": shapes.Mapping(
            CONFLICT, least=0 if committed else 1)},
        holds={"committed": committed}, path=path, **kwargs)


STEPS = (
    ("A", Step("execute_code", {"code": BIND}, gate=True,
               path=f"session A binds UserGlobals at: #{PROBE}")),
    ("B", Step("execute_code", {"code": BIND}, gate=True,
               path="session B binds it too, its view older than A's "
               "commit")),
    ("A", _commit(True, "session A commits: the success path", gate=True,
                  refusals=CANNOT_COMMIT)),
    ("B", _commit(False, "session B commits: the conflict path")),
    ("B", Step("abort", path="session B aborts")),
    ("A", Step("execute_code", {"code": UNBIND}, gate=True,
               path="session A removes the binding")),
    ("A", _commit(True, "session A commits the removal")),
)
"""Which session runs each step of the probe, in order."""

GONE = Step("execute_code", {"code": ABSENT},
            path=f"a fresh session: UserGlobals holds no {PROBE}")


def notProbed(check: TemplateCheck, library: GciLibrary,
              login: LoginParameters) -> Deferred[None]:
    """
    In place of L{commitProbe}: the report says commit's paths were not
    run, and how to run them.
    """
    check.report.notes.append(NOT_PROBED)
    return succeed(None)


@inlineCallbacks
def commitProbe(check: TemplateCheck, library: GciLibrary,
                login: LoginParameters) -> Inline[None]:
    """
    Run the probe's L{STEPS} for the L{TemplateCheck} C{check}, reporting
    in its report; then, if anything was bound, check from a fresh session
    that it is gone.
    """
    gems: dict[str, GemSession] = {}
    bound = False
    try:
        for name in ("A", "B"):
            gems[name] = yield check.loggedIn(library, login,
                                              f"check-commit-{name}")
        sessions = {name: (Recording(gem), ReadLedger(), ChangeJournal())
                    for name, gem in gems.items()}
        for name, step in STEPS:
            passed = yield check.runStep(step, *sessions[name])
            if step is STEPS[0][1]:
                bound = passed
    except Stop:
        pass
    finally:
        for gem in gems.values():
            # Whatever a failure left uncommitted goes with the session.
            yield runTemplate(gem, "abort", {}).addErrback(lambda _: None)
            yield gem.logout()
    if bound:
        yield _checkGone(check, library, login)


@inlineCallbacks
def _checkGone(check: TemplateCheck, library: GciLibrary,
               login: LoginParameters) -> Inline[None]:
    try:
        gem = yield check.loggedIn(library, login, "check-commit-after")
    except Stop:
        return
    try:
        yield check.runStep(GONE, Recording(gem), ReadLedger(),
                            ChangeJournal())
    finally:
        yield gem.logout()
