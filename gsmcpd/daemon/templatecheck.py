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
from typing import TYPE_CHECKING

import jsonschema
from twisted.internet.defer import Deferred, inlineCallbacks, maybeDeferred

from gsmcpd.daemon import Inline, Reactor, shapes
from gsmcpd.daemon.checksteps import (
    PROBE,
    PROBE_CLASS,
    SCRATCH_DICTIONARY,
    STEPS,
    Step,
)
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
from gsmcpd.tools.templates.outcomes import ToolError
from gsmcpd.tools.templates.run import runTemplate

if TYPE_CHECKING:
    from gsmcpd.daemon.options import Config

Probe = Callable[["TemplateCheck", GciLibrary, LoginParameters],
                 "Deferred[None]"]




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
        self.tools = ToolCatalog.named((*CORE_TOOLSETS, "debugging", "admin", "debugger",
                                        "refactoring", "tonel"))
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
