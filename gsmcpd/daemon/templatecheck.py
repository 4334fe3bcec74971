"""
C{gsmcpd check --templates}: every template on the configured stone,
through the daemon's own path (the ctypes binding, the envelope, the tools'
Python), with a report to attach to a bug report.

It logs in with the daemon's settings and commit-locks its session first
(C{disable_commits}: every later commit raises TransactionError 2249), so
nothing it does can be committed; the C{commit} step meets that refusal.
The mutating tools work on a scratch dictionary and class it creates and
removes; it refuses to start if either name is taken, aborts at the end,
and checks from a fresh session that neither is there.  Each tool's answer
is checked against the strict form of its output schema, and each answer of
a template the daemon runs on its own against the shape the daemon reads
(L{Step.shape}).  Only with C{--commit-probe} does anything commit: the
commit template's own paths, in sessions of their own (L{commitprobe}).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attr
import jsonschema
from twisted.internet.defer import Deferred, inlineCallbacks, maybeDeferred

from gsmcpd.daemon import Inline, Reactor, shapes
from gsmcpd.daemon.recording import Recording
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.daemon.stone import SimulatedStone, loadLibrary, realLogin
from gsmcpd.daemon.templatereport import Report, Row
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.library import GciLibrary
from gsmcpd.gci.session import GemSession, LoginParameters
from gsmcpd.protocol.jsonrpc import JsonObject
from gsmcpd.tools.base import ToolCall, strictSchema
from gsmcpd.tools.catalog import CORE_TOOLSETS, ToolCatalog
from gsmcpd.tools.journal import ChangeJournal
from gsmcpd.tools.ledger import ReadLedger
from gsmcpd.tools.templates.capabilities import OPTIONAL
from gsmcpd.tools.templates.outcomes import ToolError
from gsmcpd.tools.templates.run import runTemplate

if TYPE_CHECKING:
    from gsmcpd.daemon.options import Config

SCRATCH_DICTIONARY = "GsmcpdCheckScratch"
PROBE_CLASS = "GsmcpdCheckProbe"
PROBE_METHOD = "testProbe\n\tself assert: (self isKindOf: TestCase)"
NO_SUCH_SESSION = 2_000_000
COMMITS_DISABLED = 2249
NO_PRIVILEGE = 2151
REASON = "gsmcpd check --templates never commits in this session"

Arguments = JsonObject | Callable[[JsonObject], JsonObject]
"""A step's arguments, or what makes them from the stone's facts."""
Probe = Callable[["TemplateCheck", GciLibrary, LoginParameters],
                 "Deferred[None]"]


@attr.s(frozen=True, auto_attribs=True)
class Step:
    """
    One call of the check: a tool (its Python and its templates), or a
    template the daemon runs on its own (C{tool} false).

    @ivar expect: the tool error kind, or GemStone error number, the step
        must meet instead of a result.
    @ivar tolerated: GemStone error numbers that depend on the user's
        privileges, not on the template: reported, but a pass.
    @ivar shape: what the daemon reads from a template's answer
        (L{shapes}).
    @ivar needsCommit: whether the session must hold uncommitted changes
        after a template step, when that is part of the path it checks.
    @ivar holds: values a template step's answer must hold on the path it
        checks (C{committed} for a commit).
    @ivar refusals: GemStone error numbers that mean the step cannot be
        checked here, and why: reported as such, and a failure.
    @ivar path: which path the step checks, when its name does not say.
    @ivar gate: whether the check stops when this step fails (what comes
        after would not be safe, or would tell nothing).
    """

    name: str
    arguments: Arguments = attr.Factory(dict)
    tool: bool = True
    expect: str | int | None = None
    tolerated: tuple[int, ...] = ()
    shape: Any = attr.Factory(dict)
    needsCommit: bool | None = None
    holds: dict[str, object] = attr.Factory(dict)
    refusals: dict[int, str] = attr.Factory(dict)
    path: str = ""
    gate: bool = False

    def argumentsFor(self, facts: JsonObject) -> JsonObject:
        return self.arguments(facts) if callable(self.arguments) \
            else self.arguments


def _template(name: str, arguments: Arguments | None = None,
              **kwargs: Any) -> Step:
    return Step(name, arguments or {}, tool=False, **kwargs)


PROBE: JsonObject = {"className": PROBE_CLASS}
METHOD = dict(PROBE, selector="testProbe")

CONTINUED = {"continued": bool}

STEPS = (
    _template("preflight", shape={
        "user": str, "stone": str, "version": str, "privileges": [str],
        "maxSessionId": int}, gate=True),
    # Without the lock nothing may try to change the repository.
    _template("disable_commits", {"reason": REASON}, shape={"armed": bool},
              gate=True),
    _template("session_state",
              shape={"session": int, "commitsBehind": (int, None)}),
    _template("backlog_state",
              shape={"backlog": int, "oldestPinnedBy": [int]}),
    _template("lacking_capabilities",
              {"selectors": [each.selector for each in OPTIONAL]},
              shape=[str]),
    _template("open_session", {"name": "gsmcpd-check"}, shape={
        "name": str, "session": int, "signalAbortBacklog": (int, None)}),
    _template("mint_onetime_password",
              lambda facts: {"userId": facts["user"], "seconds": 60},
              tolerated=(NO_PRIVILEGE,), shape={"password": str}),
    _template("stop_session", {"session": NO_SUCH_SESSION},
              tolerated=(NO_PRIVILEGE,), shape={"stopped": bool}),
    # Both of continueTransaction's paths: holding no change, and (below,
    # after the scratch work) holding some.
    _template("continue_transaction", shape=CONTINUED, needsCommit=False),
    Step("status"),
    Step("stone_status"),
    Step("execute_code", {"code": "3 + 4"}),
    Step("inspect", {"expression": "Array with: 3 with: 'four'", "path": [2]}),
    # The paging paths: a page that is not the first.
    Step("inspect", {"expression": "Array new: 30", "offset": 10,
                     "limit": 5}),
    Step("profile_code", {"code": "3 + 4"}),
    Step("list_dictionaries"),
    Step("list_all_classes", {"limit": 20}),
    Step("list_all_classes", {"limit": 20, "offset": 20}),
    Step("list_classes", {"dictionaryName": "Globals", "limit": 20}),
    Step("list_dictionary_entries", {"dictionaryName": "UserGlobals",
                                     "limit": 20}),
    Step("list_test_classes", {"limit": 20}),
    Step("describe_class", {"className": "OrderedCollection"}),
    Step("get_class_definition", {"className": "OrderedCollection"}),
    Step("get_class_hierarchy", {"className": "OrderedCollection"}),
    Step("list_methods", {"className": "OrderedCollection"}),
    Step("export_class_source", {"className": "OrderedCollection"}),
    # The scratch names must be free: nothing of anyone's is touched.
    Step("describe_class", PROBE, expect="notFound", gate=True),
    Step("add_dictionary", {"dictionaryName": SCRATCH_DICTIONARY}, gate=True),
    Step("compile_class_definition", dict(
        PROBE, superclassName="TestCase", dictionary=SCRATCH_DICTIONARY),
        gate=True),
    Step("set_class_comment", dict(PROBE, comment="gsmcpd's check")),
    Step("compile_method", dict(PROBE, source=PROBE_METHOD)),
    Step("get_method_source", METHOD),
    Step("compile_method", dict(PROBE, source=PROBE_METHOD,
                                category="checking")),
    # Searches that find the probe on any stone, kernel-sized or not.
    Step("find_implementors", {"selector": "testProbe", "limit": 5}),
    Step("find_senders", {"selector": "assert:", "limit": 5}),
    Step("find_senders", {"selector": "assert:", "limit": 1, "offset": 1}),
    Step("find_references_to", {"name": "TestCase", "limit": 5}),
    Step("search_method_source", {"pattern": "isKindOf: TestCase",
                                  "dictionaryName": SCRATCH_DICTIONARY}),
    Step("run_test_class", PROBE),
    Step("run_test_method", METHOD),
    Step("describe_test_failure", METHOD),
    Step("list_failing_tests", {"classNames": [PROBE_CLASS]}),
    # The debugger: a breakpoint in the probe's test, run, read, restarted,
    # stepped and continued; a halt stopped (the stricter readings of
    # docs/gemstone-fidelity.rst's debugger, which a real stone settles).
    Step("breakpoint_set", dict(METHOD, line=2)),
    Step("debug_run", METHOD),
    Step("debug_eval", {"debug": 1, "code": "self class name"}),
    Step("debug_restart", {"debug": 1}),
    Step("debug_step", dict(debug=1, kind="over")),  # not an error's kind
    Step("breakpoint_clear", {}),
    Step("debug_continue", {"debug": 1}),
    Step("debug_run", {"code": "nil halt. 7"}),
    Step("debug_list"),
    Step("debug_stop", {"debug": 2}),
    Step("delete_method", METHOD),
    Step("get_class_definition", PROBE),
    Step("delete_class", PROBE),
    Step("list_classes", {"dictionaryName": SCRATCH_DICTIONARY}),
    Step("remove_dictionary", {"dictionaryName": SCRATCH_DICTIONARY}),
    Step("commit", expect=COMMITS_DISABLED),
    _template("continue_transaction", shape=CONTINUED, needsCommit=True),
    Step("refresh"),
    Step("abort"),
)


class Stop(Exception):
    """
    Nothing further can be checked.
    """


class TemplateCheck:
    """
    The check for one configuration.

    @param steps: what to run, in order (by default L{STEPS}).
    @param probe: what runs after the steps (L{commitprobe}), called with
        the check, the library and the login.
    """

    def __init__(self, config: Config, reactor: Reactor,
                 steps: Iterable[Step] = STEPS,
                 environ: Mapping[str, str] | None = None,
                 probe: Probe | None = None) -> None:
        self.config = config
        self.reactor = reactor
        self.steps = steps
        self.environ = environ
        self.probe = probe
        # Every shipped toolset that runs templates, served by default or not.
        self.tools = ToolCatalog.named((*CORE_TOOLSETS, "debugging", "admin",
                                        "debugger"))
        self.report = Report()
        self._touched = False

    def row(self, step: str, ok: bool, detail: str,
            templates: Iterable[str] = (), started: float | None = None) -> Row:
        elapsed = 0 if started is None else round(
            (self.reactor.seconds() - started) * 1000)
        row = Row(step, ok, detail, tuple(templates), elapsed)
        self.report.rows.append(row)
        return row

    @inlineCallbacks
    def run(self) -> Inline[Report]:
        """
        Run every step that can run; fires with the L{Report}.
        """
        simulator = None
        try:
            try:
                library = loadLibrary(self.config, self.environ)
            except ConfigError as e:
                self.row("libgcits", False, str(e))
                return self.report
            self.report.library = library.version
            if self.config.simulated:
                simulator = SimulatedStone(self.reactor, 4)
                yield simulator.start()
                login = simulator.login
            else:
                login = realLogin(self.config)
            gem = yield self.loggedIn(library, login, "check-templates")
            try:
                yield self._runSteps(Recording(gem))
            except Stop:
                pass
            finally:
                yield gem.logout()
            if self._touched:
                yield self._checkNothingLeft(library, login)
            if self.probe is not None:
                yield self.probe(self, library, login)
        except Stop:
            pass
        finally:
            if simulator is not None:
                yield simulator.stop()
        return self.report

    @inlineCallbacks
    def loggedIn(self, library: GciLibrary, login: LoginParameters,
                 name: str) -> Inline[GemSession]:
        gem = GemSession(library, login, self.reactor, name)
        try:
            yield gem.login()
        except GciError as e:
            yield gem.logout()
            self.row("login", False, f"as {login.user!r} on stone "
                     f"{login.stoneNrs!r}: {e}; run gsmcpd check for the "
                     "setup")
            raise Stop()
        return gem

    @inlineCallbacks
    def _runSteps(self, gem: Recording) -> Inline[None]:
        ledger, journal = ReadLedger(), ChangeJournal()
        for step in self.steps:
            yield self.runStep(step, gem, ledger, journal)
            self._touched = self._touched or step.name == "add_dictionary"

    @inlineCallbacks
    def runStep(self, step: Step, gem: Recording, ledger: ReadLedger,
                journal: ChangeJournal) -> Inline[bool]:
        """
        Run one step on C{gem} (a L{Recording}) and report it; fires with
        whether it passed.

        @raise Stop: it failed, and it is a gate.
        """
        started = self.reactor.seconds()
        del gem.ran[:]
        try:
            detail = yield self._runStep(step, gem, ledger, journal)
            ok = True
        except _Failed as e:
            ok, detail = False, str(e)
        self.row(step.name, ok, f"{step.path}: {detail}" if step.path
                 else detail, gem.ran, started)
        if step.gate and not ok:
            raise Stop()
        return ok

    @inlineCallbacks
    def _runStep(self, step: Step, gem: Recording, ledger: ReadLedger,
                 journal: ChangeJournal) -> Inline[str]:
        arguments = step.argumentsFor(self.report.stone)
        try:
            if step.tool:
                value = yield self._callTool(step.name, arguments, gem,
                                             ledger, journal)
            else:
                answer = yield runTemplate(gem, step.name, arguments)
                value = answer.value
                mismatch = shapes.mismatch(step.shape, value)
                if mismatch:
                    raise _Failed(mismatch)
                wrong = [f"{key} is {value[key]!r} where this path answers "
                         f"{held!r}" for key, held in step.holds.items()
                         if value[key] != held]
                if wrong:
                    raise _Failed("; ".join(wrong))
                if step.needsCommit not in (None, answer.needsCommit):
                    raise _Failed(f"needsCommit is {answer.needsCommit} "
                                  f"where this path must leave it "
                                  f"{step.needsCommit}")
                if step.name == "preflight":
                    self.report.stone = {key: value[key] for key in
                                         ("user", "stone", "version")}
        except ToolError as e:
            number = (e.details or {}).get("number")
            if step.expect is not None and step.expect in (e.kind, number):
                return f"refused as it must be: {e.message}"
            if number in step.tolerated:
                return f"refused for want of a privilege: {e.message}"
            if number in step.refusals:
                raise _Failed(f"refused: {step.refusals[number]} "
                              f"({e.message})")
            raise _Failed(f"{e.kind}: {e.message}")
        except GciError as e:
            raise _Failed(str(e))
        if step.expect is not None:
            raise _Failed(f"answered where it must meet {step.expect!r}")
        return value if step.tool else f"answered {shapes.described(value)}"

    @inlineCallbacks
    def _callTool(self, name: str, arguments: JsonObject, gem: Recording,
                  ledger: ReadLedger, journal: ChangeJournal) -> Inline[str]:
        tool = self.tools.get(name)
        assert tool is not None and tool.run is not None, f"no tool {name}"
        tool.validate(arguments)
        call = ToolCall(gem, ledger, journal=journal)
        result = yield maybeDeferred(tool.run, call, arguments)
        if result.isError:
            raise _Failed(_firstLine(result.text))
        if tool.outputSchema is not None:
            try:
                jsonschema.Draft202012Validator(
                    strictSchema(tool.outputSchema)).validate(
                        result.structured)
            except jsonschema.ValidationError as e:
                raise _Failed(f"the answer does not meet the output schema "
                              f"at {e.json_path}: {e.message[:200]}")
        return _firstLine(result.text)

    @inlineCallbacks
    def _checkNothingLeft(self, library: GciLibrary,
                          login: LoginParameters) -> Inline[None]:
        """
        From a fresh session: neither scratch name (both free when the
        check began) is there.
        """
        gem = yield self.loggedIn(library, login, "check-templates-after")
        try:
            dictionaries = (yield runTemplate(gem, "list_dictionaries",
                                              {})).value
            names = [each.get("name") for each in dictionaries]
            try:
                yield runTemplate(gem, "describe_class", PROBE)
                found = True
            except ToolError as e:
                found = e.kind != "notFound"
        finally:
            yield gem.logout()
        left = [name for name, there in ((SCRATCH_DICTIONARY, SCRATCH_DICTIONARY
                                          in names), (PROBE_CLASS, found))
                if there]
        self.row("nothing committed", not left,
                 f"{', '.join(left)} visible from a fresh session" if left
                 else "a fresh session sees neither scratch name")


def _firstLine(text: str) -> str:
    line = (text.splitlines() or [""])[0]
    return line if len(line) <= 120 else line[:119] + "…"


class _Failed(Exception):
    """
    A step's answer is not what the daemon needs; the message says how.
    """
