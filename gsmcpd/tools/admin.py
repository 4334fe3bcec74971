"""
The Admin toolset: who else is holding the stone.

Served only when named (C{--toolsets}), and where auth is on only to a
token whose scope opens it (C{--auth-scope-toolsets}): the session table
tells one user about the others.  It answers only what the logged-in user
may read; a read GemStone refuses (another session's description without
SessionAccess) is listed as withheld, never turned into an error.
"""





from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.arguments import BOOLEAN, INTEGER, OPTIONAL_STRING, STRING, JsonObject
from gsmcpd.tools.base import (
    ANY_SESSION,
    Steps,
    Tool,
    ToolCall,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    counted,
    resultSchema,
)

OPTIONAL_INTEGER = {"type": ["integer", "null"]}
OPTIONAL_BOOLEAN = {"type": ["boolean", "null"]}
NAMES = {"type": "array", "items": STRING}

DESCRIBED = ("user", "host", "idleSeconds", "holdsOldestCommitRecord",
             "commitsBehind")
"""A session's fields its description holds: withheld together."""

PAGE_CACHE = {"frames": "FrameCount", "freeFrames": "FreeFrameCount",
              "globalDirtyPages": "GlobalDirtyPageCount",
              "localDirtyPages": "LocalDirtyPageCount",
              "commitRecordPages": "TotalCrPages"}
"""The page cache figures answered, by the statistic each is read from."""

SESSION = resultSchema(
    session=INTEGER, current=BOOLEAN, user=OPTIONAL_STRING,
    host=OPTIONAL_STRING, gemName=OPTIONAL_STRING,
    idleSeconds=OPTIONAL_INTEGER, holdsOldestCommitRecord=OPTIONAL_BOOLEAN,
    commitsBehind=OPTIONAL_INTEGER, withheld=NAMES)

PAGE_CACHE_SCHEMA = dict(
    resultSchema(**{name: OPTIONAL_INTEGER for name in PAGE_CACHE}),
    type=["object", "null"])


class AdminToolset(Toolset):
    name = "admin"
    title = "Stone administration"
    instructions = (
        "stone_status shows who holds the stone: its sessions, the "
        "commit-record backlog and who pins its oldest record, the shared "
        "page cache. What your user may not read is listed as withheld.")

    def tools(self) -> list[Tool]:
        return [
            Tool("stone_status", "Stone status",
                 "The stone's name and version; the sessions logged in "
                 "(id, user, host, gem name, seconds idle, whether it "
                 "holds the oldest commit record, commits behind); the "
                 "commit-record backlog and the sessions holding its "
                 "oldest record; the shared page cache's use. Fields your "
                 "user may not read (another session's description needs "
                 "SessionAccess) are null and named in withheld.",
                 closedSchema(), annotations(True), self.stoneStatus,
                 resultSchema(
                     stone=STRING, version=STRING,
                     sessions={"type": "array", "items": SESSION},
                     commitRecordBacklog=OPTIONAL_INTEGER,
                     oldestCommitRecordHeldBy={
                         "type": ["array", "null"], "items": INTEGER},
                     pageCache=PAGE_CACHE_SCHEMA, withheld=NAMES),
                 # A read: without a handle (2026) a throwaway session,
                 # which is then the one marked current.
                 runsOn=ANY_SESSION),
        ]

    @inlineCallbacks
    def stoneStatus(self, call: ToolCall,
                    arguments: JsonObject) -> Steps[ToolResult]:
        answer = yield call.runTemplate("stone_status", {})
        status = statusFrom(answer)
        return ToolResult(describeStatus(status), status)


def statusFrom(answer: JsonObject) -> JsonObject:
    """
    The structured result from the template's answer: idle seconds from
    each session's last request, the description's fields withheld
    together, and the oldest record's holders read from the descriptions
    when the stone has no C{sessionsReferencingOldestCr}: withheld too when
    any session's description is.
    """
    now = answer["now"]
    sessions = [_session(row, now) for row in answer["sessions"]]
    oldest, withheld = answer["oldestCommitRecordHeldBy"], list(answer["withheld"])
    if oldest is None and "oldestCommitRecordHeldBy" not in withheld:
        if any("holdsOldestCommitRecord" in each["withheld"] for each in sessions):
            withheld.append("oldestCommitRecordHeldBy")
        elif any(each["holdsOldestCommitRecord"] is not None for each in sessions):
            oldest = [each["session"] for each in sessions
                      if each["holdsOldestCommitRecord"]]
    cache = answer["pageCache"]
    return {
        "stone": answer["stone"], "version": answer["version"],
        "sessions": sessions,
        "commitRecordBacklog": answer["commitRecordBacklog"],
        "oldestCommitRecordHeldBy": oldest,
        "pageCache": None if cache is None else {
            name: cache.get(statistic) for name, statistic in PAGE_CACHE.items()},
        "withheld": withheld,
    }


def _session(row: JsonObject, now: int) -> JsonObject:
    withheld: list[str] = []
    for field in row["withheld"]:
        withheld.extend(DESCRIBED if field == "description" else [field])
    lastRequest = row.get("lastRequest")
    return {
        "session": row["session"], "current": row["current"],
        "user": row.get("user"), "host": row.get("host"),
        "gemName": row["gemName"],
        "idleSeconds": None if lastRequest is None else max(now - lastRequest, 0),
        "holdsOldestCommitRecord": row.get("holdsOldestCommitRecord"),
        "commitsBehind": row.get("commitsBehind"),
        "withheld": withheld,
    }


def describeStatus(status: JsonObject) -> str:
    """
    The status as a GemStone developer reads a session list.
    """
    lines = [f"stone {status['stone']}, GemStone {status['version']}",
             counted(len(status["sessions"]), "session") + ":"]
    lines.extend("  " + _sessionLine(each) for each in status["sessions"])
    backlog = status["commitRecordBacklog"]
    oldest = status["oldestCommitRecordHeldBy"]
    held = (_known(None, status, "oldestCommitRecordHeldBy") if oldest is None
            else ", ".join(map(str, oldest)) if oldest else "no session")
    lines.append(
        f"commit-record backlog: {_known(backlog, status, 'commitRecordBacklog')}; "
        f"oldest record held by: {held}")
    lines.append("shared page cache: " + _cacheLine(status))
    return "\n".join(lines)


def _sessionLine(session: JsonObject) -> str:
    parts = [f"{session['session']}{' (this session)' if session['current'] else ''}"]
    if session["user"] is not None:
        parts.append(f"{session['user']} on {session['host'] or 'an unknown host'}")
    if session["gemName"] is not None:
        parts.append(f"gem {session['gemName']}")
    if session["idleSeconds"] is not None:
        parts.append(f"idle {session['idleSeconds']} s")
    if session["commitsBehind"] is not None:
        parts.append(counted(session["commitsBehind"], "commit") + " behind")
    if session["holdsOldestCommitRecord"]:
        parts.append("holds the oldest commit record")
    if session["withheld"]:
        parts.append("withheld: " + ", ".join(session["withheld"]))
    return ", ".join(parts)


def _known(value: object, status: JsonObject, field: str) -> str:
    if value is not None:
        return str(value)
    return "withheld" if field in status["withheld"] else "unknown"


def _cacheLine(status: JsonObject) -> str:
    cache = status["pageCache"]
    if cache is None:
        return _known(None, status, "pageCache")
    frames, free = cache["frames"], cache["freeFrames"]
    if not frames or free is None:
        return "unknown"
    used = frames - free
    return (f"{used} of {frames} frames in use ({100 * used // frames}%), "
            f"{cache['globalDirtyPages']} dirty not yet committed, "
            f"{cache['localDirtyPages']} committed not yet written")
