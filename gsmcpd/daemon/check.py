"""
C{gsmcpd check}: the preflight an operator would otherwise do by hand.

Each check prints one line, C{OK} with what it found, C{WARN} with what
will go wrong under load, or C{FAIL} with what to do about it, in the order
a GemStone setup depends on itself (the library before the login, the login
before the privileges); a failure that leaves nothing further to test shows
the checks it leaves out as C{SKIP}.  Any failure makes the command exit
non-zero, so it can gate a deployment.  First come the settings that are
not at their defaults, each with where it came from.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Callable, Collection, Generator, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import attr
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.threads import deferToThread

from gsmcpd.daemon import Inline, Reactor
from gsmcpd.daemon.certificate import judgeCertificate
from gsmcpd.daemon.security import authenticated, remoteKeys
from gsmcpd.daemon.settings import ConfigError, declaredSettings
from gsmcpd.daemon.sources import DEFAULT
from gsmcpd.daemon.stone import SimulatedStone, loadLibrary, realLogin
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.library import GciLibrary
from gsmcpd.gci.session import GemSession, LoginParameters
from gsmcpd.sessions.workers import WorkerLogins, grantNeeded
from gsmcpd.tools.templates.capabilities import describeLacking, lackingCapabilities
from gsmcpd.tools.templates.outcomes import ToolError
from gsmcpd.tools.templates.run import runTemplate

if TYPE_CHECKING:
    from gsmcpd.auth.keys import RemoteKeys
    from gsmcpd.daemon.options import Config, Options

STOP_PRIVILEGE = "SystemControl"
"""What stopping another session's gem needs (System stopSession:)."""

CONNECT_TIMEOUT = 5.0
DAEMON_OWN_SESSIONS = 2
"""Its own session and a worker login proved at startup, besides clients'."""

LOGIN_FIXES = {
    4051: "check --user and the password in --password-file",
    4065: "GEMSTONE_GLOBAL_DIR must be the directory whose locks/ the stone "
          "and NetLDI were started with; check --stone and --host",
    2710: "start the NetLDI (startnetldi), or name the one that runs with "
          "--netldi",
}


@attr.s(frozen=True, auto_attribs=True)
class Finding:
    """
    One line of the report.
    """

    subject: str
    ok: bool
    detail: str
    fix: str | None = None
    mark: str | None = None
    """C{WARN} or C{SKIP} for a finding that is not a failure, yet not
    quite OK."""

    def line(self) -> str:
        mark = self.mark or ("OK" if self.ok else "FAIL")
        text = f"{mark:<4}  {self.subject}: {self.detail}"
        return text + (f" -- fix: {self.fix}" if self.fix else "")


class Stop(Exception):
    """
    Nothing further can be checked.
    """


def settingsFindings(options: Options) -> list[Finding]:
    """
    A line per setting C{options} read from somewhere other than its
    default (after its C{config()}), saying where; a warning per setting
    given under a name that is going away.
    """
    findings: list[Finding] = []
    for name, declared in declaredSettings(options.settingsClass):
        source = options.sources.get(name)
        if source is None or source.kind == DEFAULT:
            continue
        given = source.given
        if isinstance(given, list):
            given = " ".join(given)
        elif declared.kind == "flag":
            given = "on" if given in (1, True) else given
        findings.append(Finding(f"--{declared.option}", True,
                                f"{given} (from {source.describe()})"))
    if not findings:
        findings.append(Finding("settings", True, "every setting at its "
                                "default"))
    findings += [Finding("settings", True, warning, mark="WARN")
                 for warning in options.warnings]
    return findings


class Preflight:
    """
    The checks for one configuration.

    @param report: called with each L{Finding} as soon as it is known.
    """

    def __init__(self, config: Config, reactor: Reactor,
                 report: Callable[[Finding], object],
                 environ: Mapping[str, str] | None = None) -> None:
        self.config = config
        self.reactor = reactor
        self.environ = os.environ if environ is None else environ
        self._report = report
        self.findings: list[Finding] = []

    @property
    def failed(self) -> bool:
        return any(not finding.ok for finding in self.findings)

    def found(self, subject: str, ok: bool, detail: str,
              fix: str | None = None, mark: str | None = None) -> Finding:
        finding = Finding(subject, ok, detail, fix, mark)
        self.findings.append(finding)
        self._report(finding)
        return finding

    def warned(self, subject: str, detail: str, fix: str) -> Finding:
        return self.found(subject, True, detail, fix, "WARN")

    def stoneChecks(self) -> tuple[str, ...]:
        """
        What the checks of the stone report on, in order.
        """
        return ((() if self.config.simulated else ("NetLDI",))
                + ("login", "stopping gems", "session limit",
                   "one-time passwords")
                + (("worker login",) if self.config.workerUser else ()))

    def skipRest(self) -> None:
        """
        Show each check of the stone a failure left out as skipped, naming
        the failure.
        """
        done = {finding.subject for finding in self.findings}
        failed = [finding.subject for finding in self.findings
                  if not finding.ok]
        for subject in self.stoneChecks():
            if subject not in done:
                self.found(subject, True, f"skipped: {failed[0]} failed",
                           mark="SKIP")

    @inlineCallbacks
    def run(self) -> Generator[Deferred[Any], Any, list[Finding]]:
        """
        Run every check that can run; fires with the list of findings.
        """
        simulator = None
        try:
            self.checkGemstone()
            library = self.checkLibrary()
            if self.config.simulated:
                simulator = SimulatedStone(self.reactor, (
                    self.config.maxSessions or 1) + DAEMON_OWN_SESSIONS)
                yield simulator.start()
                login = simulator.login
            else:
                login = realLogin(self.config)
                yield self.checkNetldi(login.gemNrs)
            control = yield self.checkLogin(library, login)
            try:
                yield self.checkStone(control)
                yield self.checkWorker(library, control, login)
            finally:
                yield control.logout()
        except Stop:
            pass
        finally:
            if simulator is not None:
                yield simulator.stop()
        if self.failed:
            self.skipRest()
        self.checkCertificate()
        yield self.checkJwks()
        self.checkShares()
        return self.findings

    def checkShares(self) -> None:
        self.found("fair shares", True,
                   self.config.shares.described(authenticated(self.config)))

    def checkGemstone(self) -> None:
        if self.config.simulated:
            self.found("GEMSTONE", True, "not needed: the simulated stone "
                       "(a test double, not GemStone)")
            return
        product = self.environ.get("GEMSTONE")
        if self.config.gciLibrary and not product:
            self.found("GEMSTONE", True, "not set; --gci-library names the "
                       "library")
        elif not product:
            self.found("GEMSTONE", False, "not set", "set GEMSTONE in the "
                       "environment file to the GemStone product directory")
        elif not os.path.isdir(os.path.join(product, "lib")):
            self.found("GEMSTONE", False, f"{product} has no lib/",
                       "set GEMSTONE to the GemStone product directory")
        else:
            self.found("GEMSTONE", True, product)

    def checkLibrary(self) -> GciLibrary:
        try:
            library = loadLibrary(self.config, self.environ)
        except ConfigError as e:
            # The simulated stone's refusals say what to do themselves.
            self.found("libgcits", False, str(e), None
                       if self.config.simulated else "install GemStone/S 64 "
                       "3.7 and point GEMSTONE (or --gci-library) at it")
            raise Stop()
        self.found("libgcits", True, f"GemStone {library.version} "
                   f"({library.path})")
        return library

    @inlineCallbacks
    def checkNetldi(self, gemNrs: str | None) -> Inline[None]:
        host, netldi = parseGemNrs(gemNrs)
        port = netldiPort(netldi)
        if port is None:
            self.found("NetLDI", True, f"{netldi!r} on {host}: not in "
                       "/etc/services, so the login below is what tests it")
            return
        try:
            connection = yield deferToThread(
                socket.create_connection, (host, port), CONNECT_TIMEOUT)
        except OSError as e:
            self.found("NetLDI", False, f"{host}:{port} ({netldi}): "
                       f"{e.strerror or e}", "start the NetLDI on that host "
                       "(startnetldi), or correct --host/--netldi/--gem-nrs")
            return
        connection.close()
        self.found("NetLDI", True, f"{host}:{port} ({netldi}) accepts "
                   "connections")

    @inlineCallbacks
    def checkLogin(self, library: GciLibrary,
                   login: LoginParameters) -> Inline[GemSession]:
        control = GemSession(library, login, self.reactor, "check")
        try:
            yield control.login()
        except GciError as e:
            self.found("login", False, f"as {login.user!r} on stone "
                       f"{login.stoneNrs!r}: GemStone error {e.number}: "
                       f"{e.message}", LOGIN_FIXES.get(
                           e.number, "is the stone running (gslist -l)? "
                           "check --stone, --host and the credentials"))
            raise Stop()
        return control

    @inlineCallbacks
    def checkStone(self, control: GemSession) -> Inline[None]:
        try:
            facts = (yield runTemplate(control, "preflight", {})).value
        except ToolError as e:
            self.found("stone", False, e.message, "see the GemStone error")
            return
        self.found("login", True, f"as {facts['user']!r} on stone "
                   f"{facts['stone']!r}, GemStone {facts['version']}")
        privileges = set(facts["privileges"])
        if STOP_PRIVILEGE in privileges:
            self.found("stopping gems", True, f"{facts['user']} holds "
                       f"{STOP_PRIVILEGE}")
        else:
            self.found(
                "stopping gems", False, f"{facts['user']} lacks "
                f"{STOP_PRIVILEGE}, so a runaway gem cannot be stopped",
                f"as SystemUser: (AllUsers userWithId: '{facts['user']}') "
                f"addPrivilege: #{STOP_PRIVILEGE}. System commitTransaction.")
        self.checkSessionLimit(facts["maxSessionId"])
        yield self.checkCapabilities(control)

    @inlineCallbacks
    def checkCapabilities(self, control: GemSession) -> Inline[None]:
        try:
            lacking = yield lackingCapabilities(control)
        except ToolError as e:
            self.found("optional messages", False, e.message,
                       "see the GemStone error")
            return
        self.found("optional messages", True, describeLacking(lacking))

    def checkSessionLimit(self, stoneLimit: int) -> None:
        wanted = self.config.maxSessions
        room = max(stoneLimit - DAEMON_OWN_SESSIONS, 1)
        if wanted is None:
            self.warned("session limit", f"--max-sessions is none; the stone "
                        f"allows {stoneLimit} sessions, and the login that "
                        "exhausts it fails for every gem",
                        f"set --max-sessions to at most {room}")
        elif wanted + DAEMON_OWN_SESSIONS > stoneLimit:
            self.warned("session limit", f"--max-sessions {wanted} plus the "
                        f"daemon's own {DAEMON_OWN_SESSIONS} exceed the "
                        f"stone's {stoneLimit}, so logins past it fail",
                        f"lower --max-sessions to {room}, or raise the "
                        "stone's session limit")
        else:
            self.found("session limit", True, f"--max-sessions {wanted} "
                       f"(+{DAEMON_OWN_SESSIONS} of the daemon's own) within "
                       f"the stone's {stoneLimit}; other users' sessions "
                       "count against it too")

    @inlineCallbacks
    def checkWorker(self, library: GciLibrary, control: GemSession,
                    login: LoginParameters) -> Inline[None]:
        worker = self.config.workerUser
        if not worker:
            self.found("one-time passwords", True, "not used (no "
                       "--worker-user): sessions log in as "
                       f"{login.user!r}")
            return
        try:
            parameters = yield WorkerLogins(control, login, worker)()
        except ToolError as e:
            self.found("one-time passwords", False, f"{login.user!r} cannot "
                       f"mint one for {worker!r}: {e.message}",
                       grantNeeded(login.user, worker))
            return
        self.found("one-time passwords", True, f"{login.user!r} may mint "
                   f"them for {worker!r}")
        probe = GemSession(library, parameters, self.reactor, "check-worker")
        try:
            yield probe.login()
        except GciError as e:
            self.found("worker login", False, f"{worker!r} with a one-time "
                       f"password: GemStone error {e.number}: {e.message}",
                       f"make sure {worker!r} exists and is not disabled")
            return
        try:
            facts = (yield runTemplate(probe, "preflight", {})).value
        finally:
            yield probe.logout()
        extra = sorted(set(facts["privileges"]) - {"CodeModification"})
        self.found("worker login", True, f"{worker!r} logs in; privileges: "
                   + (", ".join(facts["privileges"]) or "none")
                   + (f" (more than a restricted worker needs: "
                      f"{', '.join(extra)})" if extra else ""))

    def checkCertificate(self, now: datetime | None = None) -> None:
        # The certificate is judged against the host clients reach, when
        # --auth-audience names it.
        audience = self.config.authAudience
        self.found("certificate", *judgeCertificate(
            self.config.port, audience and urlsplit(audience).hostname,
            now or datetime.now(UTC)))

    @inlineCallbacks
    def checkJwks(self) -> Inline[None]:
        config = self.config
        if not authenticated(config):
            self.found("JWKS", True, "not used: bearer-token auth is off")
            return
        if config.authJwksFile is not None:
            self.found("JWKS", True, f"{_keys(config.authJwksFile.keys)} "
                       "from --auth-jwks-file")
            return
        where = config.authJwksUrl or f"the metadata of {config.authIssuer}"
        keys = self._remoteKeys(config)
        yield keys.refresh()
        if not keys.keys:
            self.found("JWKS", False, f"no usable signing key from {where}",
                       "check --auth-jwks-url (or --auth-issuer's metadata) "
                       "and that this host can reach it over HTTPS")
        else:
            self.found("JWKS", True, f"{_keys(keys.keys)} from {where}")

    def _remoteKeys(self, config: Config) -> RemoteKeys:
        return remoteKeys(config, self.reactor)


def _keys(keys: Collection[object]) -> str:
    return f"{len(keys)} signing key{'s' if len(keys) != 1 else ''}"


def parseGemNrs(gemNrs: str | None) -> tuple[str, str]:
    """
    The host and NetLDI a gem NRS names: GemStone's defaults (localhost,
    gs64ldi) where it names none.
    """
    host, netldi = "localhost", "gs64ldi"
    if gemNrs:
        found = re.search(r"@([^#!]+)", gemNrs)
        if found:
            host = found.group(1)
        found = re.search(r"#netldi:([^#!]+)", gemNrs)
        if found:
            netldi = found.group(1)
    return host, netldi


def netldiPort(netldi: str) -> int | None:
    if netldi.isdigit():
        return int(netldi)
    try:
        return socket.getservbyname(netldi, "tcp")
    except OSError:
        return None
